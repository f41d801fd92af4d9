// Redis connections, one factory for every process and role (SPEC 25):
// a single Redis at redis.url, a master behind Sentinel, or a Redis
// Cluster, as the config's redis keys say (redis-target.ts). Workers
// block on Redis and must retry for ever (BullMQ needs maxRetriesPerRequest: null); producers and the web process
// are request paths and fail fast when Redis is down rather than queueing
// commands. Every connection retries with backoff (redis-backoff.ts) and
// reports its failures to its address's outage reporter, which logs them
// once per interval in words (SPEC 24); BullMQ's duplicates of a
// connection report the same way.
import { Cluster, Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import type { RedisClient } from '../redis-script.js';
import { readSecretFileSync } from '../secrets/read.js';
import { redisRetryDelayMs } from './redis-backoff.js';
import type { HeartbeatWatch } from './heartbeat.js';
import { UNANSWERED_BEAT, unavailableReason, unreachableLine, unreachableReason } from './redis-failure.js';
import { redisOutageReporter, type OutageLogger, type RedisOutageReporter } from './redis-outage.js';
import { CLUSTER_CHECK, hostPorts, redisModeOf, redisPlaceOf, type RedisConnection, type RedisPlace } from './redis-target.js';

export type { Redis } from 'ioredis';
export type { RedisClient } from '../redis-script.js';
export type { RedisConnection } from './redis-target.js';

// Where each connection (and each duplicate of it) goes, for the lines of SPEC 24.
const places = new WeakMap<RedisClient, RedisPlace>();

/** Listens to a connection (and every duplicate made of it) on behalf of its reporter. */
function watched<C extends RedisClient>(redis: C, reporter: RedisOutageReporter, place: RedisPlace): C {
  places.set(redis, place);
  redis.on('error', (err: unknown) => {
    reporter.failed(err);
  });
  redis.on('ready', () => reporter.recovered());
  // Redis.duplicate(options) and Cluster.duplicate(nodes, options) alike.
  const duplicate = redis.duplicate.bind(redis) as (...args: unknown[]) => C;
  (redis as unknown as { duplicate: (...args: unknown[]) => C }).duplicate = (...args: unknown[]) => watched(duplicate(...args), reporter, place);
  return redis;
}

function passwordFrom(file: string): string {
  try {
    return readSecretFileSync(file);
  } catch (err) {
    throw new Error(`redis.passwordFile (REDIS_PASSWORD_FILE): ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

/** TLS, user, password and database from redis.url; the password from redis.passwordFile when set. */
function credentialsOf(connection: RedisConnection): RedisOptions {
  const url = new URL(connection.url);
  const password = connection.passwordFile ? passwordFrom(connection.passwordFile) : decodeURIComponent(url.password);
  const db = Number(url.pathname.slice(1) || 0);
  return {
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(password ? { password } : {}),
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
    ...(db > 0 ? { db } : {}),
  };
}

/**
 * A connection that retries for ever (the worker's) also waits out a
 * failover on a Cluster. ioredis retries a command whose node went away
 * every 100 ms (retryDelayOnFailover) and counts each try against
 * maxRedirections, 16 by default: about 1.6 s, less than a replica takes
 * to be promoted: a worker started during a failover would fail its
 * start that way and take no job.
 */
const RIDE_OUT_FAILOVER = Number.POSITIVE_INFINITY;

function build(connection: RedisConnection, options: RedisOptions, retryStrategy: (times: number) => number): RedisClient {
  switch (redisModeOf(connection)) {
    case 'cluster': {
      // A cluster has no databases; its offline queue and lazy connect are the cluster's, the rest each node's.
      const { enableOfflineQueue, lazyConnect, db: _db, ...nodeOptions } = { ...credentialsOf(connection), ...options };
      return new Cluster(hostPorts(connection.clusterNodes ?? []), {
        clusterRetryStrategy: retryStrategy,
        ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
        ...(lazyConnect === undefined ? {} : { lazyConnect }),
        ...(options.maxRetriesPerRequest === null ? { maxRedirections: RIDE_OUT_FAILOVER } : {}),
        redisOptions: nodeOptions,
      });
    }
    case 'sentinel':
      return new Redis({
        ...credentialsOf(connection),
        ...options,
        sentinels: hostPorts(connection.sentinel?.nodes ?? []),
        name: connection.sentinel?.name ?? '',
        retryStrategy,
        // No sentinel answering: ask them again after the same backoff
        // (null here would leave ioredis's reconnect with an unhandled rejection).
        sentinelRetryStrategy: retryStrategy,
      });
    case 'single': {
      const { password } = credentialsOf(connection);
      return new Redis(connection.url, { ...options, ...(password ? { password } : {}), retryStrategy });
    }
  }
}

/** A connection for one role, to a single Redis (a URL), a Sentinel-managed master or a Cluster (SPEC 25). */
function connect(target: string | RedisConnection, options: RedisOptions): RedisClient {
  const connection = typeof target === 'string' ? { url: target } : target;
  const place = redisPlaceOf(connection);
  const reporter = redisOutageReporter(place.address, place.check);
  const retryStrategy = (times: number): number => {
    const delay = redisRetryDelayMs(times);
    reporter.retrying(delay);
    return delay;
  };
  return watched(build(connection, options, retryStrategy), reporter, place);
}

export function createWorkerConnection(target: string | RedisConnection): RedisClient {
  return connect(target, { maxRetriesPerRequest: null });
}

/** The web process's own connection (readiness, Bull Board, metrics): commands fail at once while it is down. */
export function createWebConnection(target: string | RedisConnection): RedisClient {
  return connect(target, { enableOfflineQueue: false, connectTimeout: 2000, maxRetriesPerRequest: 1 });
}

export function createProducerConnection(target: string | RedisConnection): RedisClient {
  return connect(target, { enableOfflineQueue: false, connectTimeout: 2000, maxRetriesPerRequest: 1, lazyConnect: true });
}

/** The request budget's connection (SPEC 26): a call Redis does not answer within commandTimeoutMs fails. */
export function createBudgetConnection(target: string | RedisConnection, commandTimeoutMs: number): RedisClient {
  return connect(target, { commandTimeout: commandTimeoutMs, maxRetriesPerRequest: 1 });
}

/**
 * An 'error' event of a BullMQ Queue or Worker on this connection: a
 * connection failure goes to the outage reporter, anything else is logged
 * once as the error it is.
 */
export function reportRedisError(connection: unknown, err: unknown, source: string, logger?: OutageLogger): void {
  const place = connection instanceof Redis || connection instanceof Cluster ? placeOfConnection(connection) : { address: 'redis', check: undefined };
  redisOutageReporter(place.address, place.check).error(err, source, logger);
}

function placeOfConnection(redis: RedisClient): RedisPlace {
  const known = places.get(redis);
  if (known !== undefined) return known;
  return redis instanceof Redis ? redisPlaceOf(`redis://${redis.options.host ?? '127.0.0.1'}:${redis.options.port ?? 6379}`) : { address: 'cluster', check: CLUSTER_CHECK };
}

/**
 * A worker's heartbeat unanswered (heartbeat.ts) as an outage of its
 * connection's address (SPEC 24), unless the connection already reports
 * one: on a Cluster whose slot lost its master for good every command
 * waits without an error, and nothing else would say so.
 */
export function unansweredBeatReporter(redis: RedisClient): HeartbeatWatch {
  const place = placeOfConnection(redis);
  const reporter = redisOutageReporter(place.address, place.check);
  let ours = false;
  return {
    unanswered(everyMs) {
      if (!ours && reporter.current() !== undefined) return;
      ours = ours || reporter.failed(new Error(UNANSWERED_BEAT));
      reporter.retrying(everyMs);
    },
    answered() {
      if (ours) reporter.recovered();
      ours = false;
    },
  };
}

export class RedisUnavailableError extends Error {
  override readonly name: string = 'RedisUnavailableError';
}

// Calls made together on a fresh connection share its one connect: the
// ones after the first would otherwise find it still connecting and send a
// command that a connection without an offline queue refuses at once.
const connecting = new WeakMap<RedisClient, Promise<void>>();

function connectOnce(redis: RedisClient): Promise<void> {
  let pending = connecting.get(redis);
  if (pending === undefined) {
    pending = redis.connect().finally(() => connecting.delete(redis));
    connecting.set(redis, pending);
  }
  return pending;
}

/** Longest wait for a first connect: behind Sentinel one retries within the connect while no sentinel answers. */
const FIRST_CONNECT_MS = 3_000;

function withinFirstConnect(pending: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new RedisUnavailableError('not connected')), FIRST_CONNECT_MS);
  });
  return Promise.race([pending, late]).finally(() => clearTimeout(timer));
}

/** Connects a lazy connection and waits until it answers; rejects at once when Redis is down. */
export async function connected<C extends RedisClient>(redis: C): Promise<C> {
  if (redis.status === 'ready') return redis;
  try {
    const pending = connecting.get(redis);
    if (pending !== undefined) await withinFirstConnect(pending);
    else if (redis.status === 'wait') await withinFirstConnect(connectOnce(redis));
    else await redis.ping();
  } catch (err) {
    throw unavailableError(redis, err, err instanceof Error ? err.message : String(err));
  }
  return redis;
}

function unavailableError(redis: RedisClient, err: unknown, reason: string): RedisUnavailableError {
  const place = placeOfConnection(redis);
  const reporter = redisOutageReporter(place.address, place.check);
  return new RedisUnavailableError(unreachableLine(place.address, reporter.current()?.reason ?? unreachableReason(err) ?? reason, place.check));
}

/**
 * A command's error as the RedisUnavailableError `connected` gives when it
 * means Redis is not reachable; any other error as it is. Redis can go
 * between `connected` and the command: ioredis then refuses it ("Stream
 * isn't writeable ...") before it notices the connection closed.
 */
export function asRedisUnavailable(redis: RedisClient, err: unknown): unknown {
  if (err instanceof RedisUnavailableError) return err;
  const reason = unavailableReason(err);
  return reason === undefined ? err : unavailableError(redis, err, reason);
}
