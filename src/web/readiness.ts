// /readyz (SPEC 6): ready when Redis answers, at least one worker has
// sent a heartbeat recently, and the last health job found at least one
// node fit to take VMs of at least one image (SPEC 27: one broken image
// does not make the service unready while another still works). The
// answer says which of these failed, and why.
import type { NodeHealth } from '../job-table/health-result.schema.js';
import { failedChecks, nodeCanProvision, type LastHealth } from '../queue/health-store.js';
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
  /** The same in words that name no host, worker or node: what /readyz tells anyone. */
  summary?: string;
  checks: {
    redis: { ok: boolean; error?: string };
    workers: { ok: boolean; live: number; workers?: { id: string; host: string }[]; error?: string };
    health: { ok: boolean; at?: string; nodes?: NodeHealth[]; error?: string };
  };
}

const PROBE_TIMEOUT_MS = 2000;

const NO_WORKER = 'no worker has sent a heartbeat recently; start `pve-provisioner worker`';
const NO_HEALTH = 'no health result yet; each worker checks the nodes at start, and the health job every health.everySeconds';
const CANNOT_PROVISION = 'the workers cannot provision: the last health check found no node fit to take VMs';

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
          : { ok: false, live: 0, error: NO_WORKER },
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
  return reason === undefined ? { ready, checks } : { ready, reason, summary: summaryOf(checks, workers.status === 'rejected'), checks };
}

/** The first failing check in words that name no host, worker or node. */
function summaryOf(checks: ReadinessReport['checks'], workersUnread: boolean): string {
  if (!checks.redis.ok) return 'Redis is not reachable from the web process';
  if (!checks.workers.ok) return workersUnread ? 'the worker heartbeats could not be read from Redis' : NO_WORKER;
  const last = checks.health;
  if (last.nodes === undefined) return last.error === NO_HEALTH ? NO_HEALTH : 'the last health result could not be read from Redis';
  const kinds = [...new Set(last.nodes.flatMap((node) => node.reasons.map((r) => r.reason)))];
  return `${CANNOT_PROVISION} (${kinds.join(', ') || 'no reason given'})`;
}

function healthCheck(result: PromiseSettledResult<LastHealth | undefined>): ReadinessReport['checks']['health'] {
  if (result.status === 'rejected') return { ok: false, error: messageOf(result.reason) };
  const last = result.value;
  if (last === undefined) return { ok: false, error: NO_HEALTH };
  const ok = last.nodes.some(nodeCanProvision);
  if (ok) return { ok, at: last.at, nodes: last.nodes };
  const failing = last.nodes.map((node) => `${node.node}: ${failedChecks(node)}`).join('; ');
  return { ok, at: last.at, nodes: last.nodes, error: `${CANNOT_PROVISION} (${last.at}): ${failing}` };
}
