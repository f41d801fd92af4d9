// What a Redis failure is, in words (SPEC 24): which errors mean "Redis is
// not reachable" rather than a bug, the address to name (never the
// password in the URL), and the reason an operator can act on.

/** `host:port`, the host in brackets when it is an IPv6 address. */
export function formatAddress(host: string, port: number | string): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** `host:port` of a redis:// or rediss:// URL, without credentials. */
export function redisAddressOf(url: string): string {
  try {
    const parsed = new URL(url);
    return formatAddress(parsed.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1', parsed.port || '6379');
  } catch {
    return 'the address in redis.url';
  }
}

const UNREACHABLE_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ETIMEDOUT: 'connection timed out',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection broken',
};

/** The start of the error a worker's unanswered heartbeat is reported as (connection.ts). */
export const UNANSWERED_BEAT = 'No answer to the worker heartbeat';

// ioredis and BullMQ texts for a connection that is down or going down.
const UNREACHABLE_TEXTS: [RegExp, string][] = [
  // Connected, yet no answer: on a Cluster, a slot whose master is gone and no replica took over.
  [new RegExp(`^${UNANSWERED_BEAT}`), 'no answer to the heartbeat: on a Cluster, the master of the slot of the service\'s keys may be down'],
  [/^Connection is closed\.?$/, 'connection closed'],
  [/^Stream isn't writeable and enableOfflineQueue options is false$/, 'not connected'],
  [/^Reached the max retries per request limit/, 'not connected'],
  [/^connect ETIMEDOUT$/, 'connection timed out'],
  [/ECONNREFUSED/, 'connection refused'],
  [/^LOADING\b/, 'Redis is still loading its data'],
  [/^(NOAUTH|WRONGPASS)\b/, 'authentication refused: check the password in redis.url or redis.passwordFile'],
  // A Cluster or Sentinel between masters (SPEC 25).
  [/^Failed to refresh slots cache|^None of startup nodes is available/, 'no cluster node answers'],
  [/^CLUSTERDOWN\b/, 'the cluster is down: a slot has no master, a failover may be under way'],
  [/^All sentinels are unreachable/, 'no sentinel answers'],
  [/^(READONLY|MASTERDOWN)\b/, 'the master is changing: a failover may be under way'],
];

/** The reason in words when err means Redis is not reachable; undefined for any other error. */
export function unreachableReason(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as NodeJS.ErrnoException).code;
  if (code !== undefined && UNREACHABLE_CODES[code] !== undefined) return UNREACHABLE_CODES[code];
  if (err.name === 'MaxRetriesPerRequestError' || err.name === 'RedisUnavailableError' || err.name === 'ReplicaAcksError') return 'not connected';
  for (const [pattern, reason] of UNREACHABLE_TEXTS) if (pattern.test(err.message)) return reason;
  return undefined;
}

// ioredis's Cluster client gives up a command after its redirections run
// out (maxRedirections, 16 by default; the producer and web keep it so a
// caller hears at once) while a slot's master is being replaced. It is not
// an outage of the connection (nothing reports it ended), so the outage
// reporter does not take it; the doors that answer a request do (SPEC 24, 25).
const CLUSTER_BETWEEN_MASTERS = /^Too many Cluster redirections\b/;

/** unreachableReason, or the reason for a Cluster command that ran out of redirections during a failover. */
export function unavailableReason(err: unknown): string | undefined {
  const reason = unreachableReason(err);
  if (reason !== undefined || !(err instanceof Error)) return reason;
  return CLUSTER_BETWEEN_MASTERS.test(err.message) ? 'a cluster slot is between masters: a failover may be under way' : undefined;
}

/** What to check about a single Redis at redis.url; a Cluster and Sentinel have their own (redis-target.ts). */
export const SINGLE_CHECK = 'check that redis-server runs there and that redis.url (REDIS_URL) names it';

/** The one line that says Redis is down, where, and what to check. */
export function unreachableLine(address: string, reason: string, check = SINGLE_CHECK): string {
  return `Redis at ${address} is not reachable (${reason}): ${check}`;
}
