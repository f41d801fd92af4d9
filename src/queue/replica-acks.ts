// Proof that an accepted request is on replicas before it is answered
// (SPEC 1, 22, 25). Redis replicates asynchronously: a master
// can answer an accept's writes and die before its replica has them, and
// the promoted replica then has no trace of a request the caller was told
// was taken. With redis.replicaAcks N, the accept's writes are followed by
// WAIT N <timeout> on the master that took them; fewer than N replicas
// within the timeout and the accept is refused as Redis down is, and the
// caller repeats it (the accept is idempotent by name, spec and job id).
import { Cluster } from 'ioredis';
import type { Redis } from 'ioredis';
import type { RedisClient } from '../redis-script.js';
import { ProducerConfigError } from '../config/producer.js';
import { RedisUnavailableError } from './connection.js';
import { keys } from '../redis-keys.js';
import type { RedisConnection } from './redis-target.js';

const DEFAULT_REPLICA_ACK_TIMEOUT_MS = 1000;

/**
 * Redis took the writes but too few replicas confirmed them: the accept
 * is not confirmed. A RedisUnavailableError (HTTP 503), so callers that
 * repeat a request while Redis is down repeat this one too.
 */
export class ReplicaAcksError extends RedisUnavailableError {
  override readonly name = 'ReplicaAcksError';
}

export interface ReplicaAcks {
  /** Runs an accept's writes; resolves with their result once enough replicas have them, else throws ReplicaAcksError. */
  confirmed<T>(writes: () => Promise<T>): Promise<T>;
}

/** A producer's `redis` option as given (the service's config validated its own): ProducerConfigError naming a bad key. */
export function checkedReplicaAcks(connection: RedisConnection): RedisConnection {
  const { replicaAcks: count, replicaAckTimeoutMs: timeout } = connection;
  if (count !== undefined && (!Number.isSafeInteger(count) || count < 0)) throw new ProducerConfigError(`redis.replicaAcks is ${JSON.stringify(count)}; it must be a whole number of at least 0`);
  if (timeout !== undefined && (!Number.isSafeInteger(timeout) || timeout < 1)) throw new ProducerConfigError(`redis.replicaAckTimeoutMs is ${JSON.stringify(timeout)}; it must be a whole number of at least 1`);
  return connection;
}

/** The connection to the master holding our keys, and its socket: a reconnect (Sentinel's new master) is another socket. */
interface MasterLink {
  node: Redis;
  socket: unknown;
  name: string;
}

const CHECK = 'check that the master\'s replicas run and keep up (INFO replication on the master), or lower redis.replicaAcks (REDIS_REPLICA_ACKS)';

function nodeKey(node: Redis): string {
  return `${node.options.host ?? ''}:${node.options.port ?? ''}`;
}

/**
 * On a Cluster WAIT has no key, so ioredis would send it to any node: it
 * goes to the node the slot map names master of our slot, the one our
 * writes went to. A single Redis or a Sentinel master is the connection itself.
 */
function linkOf(redis: RedisClient, slot: number): MasterLink | undefined {
  if (!(redis instanceof Cluster)) return { node: redis, socket: redis.stream, name: 'the master' };
  const key = redis.slots[slot]?.[0];
  const node = key === undefined ? undefined : redis.nodes('master').find((n) => nodeKey(n) === key);
  return node && { node, socket: node.stream, name: key ?? '' };
}

/**
 * A cluster node's connection does not reconnect (ioredis makes a new one),
 * so the same node object is the same master. A node first connected by
 * the writes themselves had no socket before: its object decides.
 */
function sameMaster(before: MasterLink | undefined, after: MasterLink | undefined): after is MasterLink {
  return before !== undefined && after !== undefined && after.node === before.node && (before.socket === undefined || after.socket === before.socket);
}

export function replicaAcks(redis: RedisClient, prefix: string, connection: RedisConnection): ReplicaAcks {
  const required = connection.replicaAcks ?? 0;
  const timeoutMs = connection.replicaAckTimeoutMs ?? DEFAULT_REPLICA_ACK_TIMEOUT_MS;
  const fence = keys.replicaAckFence(prefix);
  let slot: Promise<number> | undefined;
  const slotOfFence = (): Promise<number> => {
    if (!(redis instanceof Cluster)) return Promise.resolve(0);
    // Asked once: a key's slot never changes. A failed ask is asked again next time.
    slot ??= (redis.call('CLUSTER', 'KEYSLOT', fence) as Promise<number>).then(Number).catch((err: unknown) => {
      slot = undefined;
      throw err;
    });
    return slot;
  };
  const unconfirmed = (what: string): ReplicaAcksError => new ReplicaAcksError(`Redis accepted the write but ${what}: ${CHECK}`);

  // The fence write first, on the same connection: WAIT counts replicas up
  // to this connection's last write, so it then covers everything the
  // master had, the accept's writes included even when a repeated accept
  // wrote nothing itself (its record was written by an earlier try).
  const acksOn = async (link: MasterLink): Promise<number> => {
    const replies = (await link.node.pipeline().set(fence, String(Date.now())).wait(required, timeoutMs).exec()) ?? [];
    for (const [err] of replies) if (err) throw unconfirmed(`the WAIT on ${link.name} failed (${err.message})`);
    return Number(replies[1]?.[1] ?? 0);
  };

  return {
    async confirmed(writes) {
      if (required === 0) return writes();
      const slotNumber = await slotOfFence();
      const before = linkOf(redis, slotNumber);
      const result = await writes();
      const after = linkOf(redis, slotNumber);
      // A WAIT on a new master proves only what that master has, not that it got these writes.
      const changed = `the master holding its keys changed during the request (${before?.name ?? 'none'} then ${after?.name ?? 'none'}), so no replica is known to have it`;
      if (!sameMaster(before, after)) throw unconfirmed(changed);
      const acks = await acksOn(after).catch((err: unknown) => {
        throw err instanceof ReplicaAcksError ? err : unconfirmed(`the WAIT on ${after.name} failed (${err instanceof Error ? err.message : String(err)})`);
      });
      if (acks < required) throw unconfirmed(`only ${acks} of ${required} replicas confirmed it within ${timeoutMs} ms`);
      return result;
    },
  };
}

/** For the doors that accept nothing from a caller (reconciler, schedules): no WAIT. */
export const NO_REPLICA_ACKS: ReplicaAcks = { confirmed: (writes) => writes() };
