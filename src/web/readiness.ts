// /readyz (SPEC 6): ready when Redis answers, at least one worker has
// sent a heartbeat recently, and the last health job found at least one
// node fit to take VMs of at least one image (SPEC 27: one broken image
// does not make the service unready while another still works). The
// answer says which of these failed, and why. With several Proxmox
// clusters (SPEC 32) it also says which are away: a warning while another
// cluster takes VMs, the reason when every one is away.
import type { ClusterConfig } from '../config/types.js';
import type { NodeHealth } from '../job-table/health-result.schema.js';
import type { ClusterState } from '../queue/cluster-health.js';
import { failedChecks, nodeCanProvision, type LastHealth } from '../queue/health-store.js';
import type { WorkerBeat } from '../queue/heartbeat.js';
import { clusterReadiness } from './readiness-clusters.js';

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
  /** Ready, but some Proxmox clusters are away (SPEC 32): which, in words. */
  warning?: string;
  /** The same naming no cluster: what /readyz tells anyone. */
  warningSummary?: string;
  checks: {
    redis: { ok: boolean; error?: string };
    workers: { ok: boolean; live: number; workers?: { id: string; host: string }[]; error?: string };
    health: { ok: boolean; at?: string; nodes?: NodeHealth[]; error?: string };
    /** With several clusters (SPEC 32): each one's state in the last health result. */
    clusters?: { name: string; state: ClusterState }[];
  };
}

const PROBE_TIMEOUT_MS = 2000;

const NO_WORKER = 'no worker has sent a heartbeat recently; start `pve-provisioner worker`';
const NO_HEALTH = 'no health result yet; each worker checks the nodes at start, and the health job every health.everySeconds';
const CANNOT_PROVISION = 'the workers cannot provision: the last health check found no node fit to take VMs';
const ALL_AWAY = 'the workers cannot provision: no Proxmox cluster answered the last health check';

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

/**
 * `clusters`: the configured clusters in the several-clusters form (SPEC
 * 32); absent (the one-cluster form), the report is as it always was.
 */
export async function checkReadiness(sources: ReadinessSources, clusters?: readonly Pick<ClusterConfig, 'name'>[]): Promise<ReadinessReport> {
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
  const last = health.status === 'fulfilled' ? health.value : undefined;
  const byCluster = clusters === undefined || last === undefined ? undefined : clusterReadiness(last, clusters);
  if (byCluster !== undefined && last !== undefined) {
    checks.clusters = byCluster.clusters;
    if (byCluster.allAway !== undefined && !checks.health.ok) checks.health.error = `${byCluster.allAway} (${last.at}): ${failingNodes(last.nodes)}`;
  }
  if (!checks.redis.ok) {
    // Their reads failed for the same reason; ioredis's words would only hide it.
    const notChecked = 'not checked: Redis is not reachable';
    checks.workers = { ok: false, live: 0, error: notChecked };
    checks.health = { ok: false, error: notChecked };
  }
  const ready = checks.redis.ok && checks.workers.ok && checks.health.ok;
  const reason = [checks.redis, checks.workers, checks.health].find((check) => !check.ok)?.error;
  const warned = byCluster?.warning === undefined || !checks.redis.ok ? {} : { warning: byCluster.warning.named, warningSummary: byCluster.warning.counted };
  if (reason === undefined) return { ready, ...warned, checks };
  return { ready, reason, summary: summaryOf(checks, workers.status === 'rejected', byCluster?.allAway !== undefined), ...warned, checks };
}

/** The first failing check in words that name no host, worker or node. */
function summaryOf(checks: ReadinessReport['checks'], workersUnread: boolean, allClustersAway: boolean): string {
  if (!checks.redis.ok) return 'Redis is not reachable from the web process';
  if (!checks.workers.ok) return workersUnread ? 'the worker heartbeats could not be read from Redis' : NO_WORKER;
  const last = checks.health;
  if (last.nodes === undefined) return last.error === NO_HEALTH ? NO_HEALTH : 'the last health result could not be read from Redis';
  const kinds = [...new Set(last.nodes.flatMap((node) => node.reasons.map((r) => r.reason)))];
  if (allClustersAway) return `${ALL_AWAY} (${kinds.join(', ') || 'no reason given'})`;
  return `${CANNOT_PROVISION} (${kinds.join(', ') || 'no reason given'})`;
}

function failingNodes(nodes: readonly NodeHealth[]): string {
  return nodes.map((node) => `${node.node}: ${failedChecks(node)}`).join('; ');
}

function healthCheck(result: PromiseSettledResult<LastHealth | undefined>): ReadinessReport['checks']['health'] {
  if (result.status === 'rejected') return { ok: false, error: messageOf(result.reason) };
  const last = result.value;
  if (last === undefined) return { ok: false, error: NO_HEALTH };
  const ok = last.nodes.some(nodeCanProvision);
  if (ok) return { ok, at: last.at, nodes: last.nodes };
  return { ok, at: last.at, nodes: last.nodes, error: `${CANNOT_PROVISION} (${last.at}): ${failingNodes(last.nodes)}` };
}
