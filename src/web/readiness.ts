// /readyz (SPEC 6): ready when Redis answers, at least one worker has
// sent a heartbeat recently, and the last health job found at least one
// node fit to take VMs of at least one image (SPEC 27: one broken image
// does not make the service unready while another still works). The
// answer says which of these failed, and why.
import type { NodeHealth } from '../provider/types.js';
import { nodeCanProvision, type LastHealth } from '../queue/health-store.js';
import type { WorkerBeat } from '../queue/heartbeat.js';

export type { LastHealth } from '../queue/health-store.js';

export interface ReadinessSources {
  /** Rejects when Redis does not answer. */
  pingRedis(): Promise<void>;
  /** Workers whose heartbeat has not expired. */
  liveWorkers(): Promise<Pick<WorkerBeat, 'id' | 'host'>[]>;
  lastHealth(): Promise<LastHealth | undefined>;
}

export interface ReadinessReport {
  ready: boolean;
  /** Why it is not ready, in words: the first failing check. */
  reason?: string;
  checks: {
    redis: { ok: boolean; error?: string };
    workers: { ok: boolean; live: number; workers?: { id: string; host: string }[]; error?: string };
    health: { ok: boolean; at?: string; nodes?: NodeHealth[]; error?: string };
  };
}

const PROBE_TIMEOUT_MS = 2000;

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export async function checkReadiness(sources: ReadinessSources): Promise<ReadinessReport> {
  const [redis, workers, health] = await Promise.allSettled([
    withTimeout(sources.pingRedis(), 'Redis'),
    withTimeout(sources.liveWorkers(), 'the worker heartbeat read'),
    withTimeout(sources.lastHealth(), 'the health result read'),
  ]);
  const checks: ReadinessReport['checks'] = {
    redis: redis.status === 'fulfilled' ? { ok: true } : { ok: false, error: messageOf(redis.reason) },
    workers:
      workers.status === 'rejected'
        ? { ok: false, live: 0, error: messageOf(workers.reason) }
        : workers.value.length > 0
          ? { ok: true, live: workers.value.length, workers: workers.value.map(({ id, host }) => ({ id, host })) }
          : { ok: false, live: 0, error: 'no worker has sent a heartbeat recently; start `pve-provisioner worker`' },
    health: healthCheck(health),
  };
  if (!checks.redis.ok) {
    // Their reads failed for the same reason; ioredis's words would only hide it.
    const notChecked = 'not checked: Redis is not reachable';
    checks.workers = { ok: false, live: 0, error: notChecked };
    checks.health = { ok: false, error: notChecked };
  }
  const ready = checks.redis.ok && checks.workers.ok && checks.health.ok;
  const reason = [checks.redis, checks.workers, checks.health].find((check) => !check.ok)?.error;
  return reason === undefined ? { ready, checks } : { ready, reason, checks };
}

function healthCheck(result: PromiseSettledResult<LastHealth | undefined>): ReadinessReport['checks']['health'] {
  if (result.status === 'rejected') return { ok: false, error: messageOf(result.reason) };
  const last = result.value;
  if (last === undefined) return { ok: false, error: 'no health result yet; the worker runs the health job at start and every health.everySeconds' };
  const ok = last.nodes.some(nodeCanProvision);
  return ok
    ? { ok, at: last.at, nodes: last.nodes }
    : { ok, at: last.at, nodes: last.nodes, error: 'the last health job found no node fit to take VMs' };
}
