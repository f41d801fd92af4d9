// Which Redis a process talks to (SPEC 7, 25): one server at redis.url, a
// master behind Sentinel, or a Redis Cluster; the key prefix each needs;
// and how the failure lines name it and what to check (SPEC 24).
import { parseHostPort } from '../config/host-port.js';
import { SINGLE_CHECK, formatAddress, redisAddressOf } from './redis-failure.js';

/**
 * A connection description, as config.redis holds it. Only `url` is
 * required: a single Redis. redis.url keeps giving the scheme (rediss://
 * for TLS), user, password and database on a Cluster or behind Sentinel.
 */
export interface RedisConnection {
  url: string;
  /** host:port of the cluster nodes to start from; empty or absent: no cluster. */
  clusterNodes?: readonly string[];
  /** The sentinels and the master's name; nodes empty or absent: no Sentinel. */
  sentinel?: { nodes: readonly string[]; name: string };
  /** File holding the password; empty or absent: the URL's. */
  passwordFile?: string;
  /** Replicas that must confirm an accept (WAIT) before it is answered; 0 or absent: none (replica-acks.ts). */
  replicaAcks?: number;
  /** Longest wait for them (ms); absent: 1000. */
  replicaAckTimeoutMs?: number;
}

export type RedisMode = 'single' | 'cluster' | 'sentinel';

export function redisModeOf(connection: RedisConnection): RedisMode {
  if ((connection.clusterNodes?.length ?? 0) > 0) return 'cluster';
  if ((connection.sentinel?.nodes.length ?? 0) > 0) return 'sentinel';
  return 'single';
}

/**
 * The prefix every key is written under. On a Cluster it is the hash tag
 * `{prefix}`, so that all keys of ours and of BullMQ hash to one slot and
 * every script and MULTI sees keys of one slot (BullMQ's Cluster guide).
 */
export function keyPrefixOf(prefix: string, connection: RedisConnection): string {
  return redisModeOf(connection) === 'cluster' ? `{${prefix}}` : prefix;
}

/** host:port pairs of a node list; the config validated their form. */
export function hostPorts(nodes: readonly string[]): { host: string; port: number }[] {
  return nodes.flatMap((node) => {
    const parsed = parseHostPort(node);
    return parsed === undefined ? [] : [parsed];
  });
}

/** Where a connection goes, in the words of the failure lines, and what to check when it is not reachable. */
export interface RedisPlace {
  /** `host:port`, or the node list of a Cluster, or the master's name and sentinels. */
  address: string;
  check: string;
}

export const CLUSTER_CHECK = 'check that the cluster nodes run, that every slot has a master, and that redis.clusterNodes (REDIS_CLUSTER_NODES) names some of them';

export function redisPlaceOf(connection: RedisConnection | string): RedisPlace {
  const target = typeof connection === 'string' ? { url: connection } : connection;
  const list = (nodes: readonly string[]): string => hostPorts(nodes).map((n) => formatAddress(n.host, n.port)).join(',');
  switch (redisModeOf(target)) {
    case 'cluster':
      return {
        address: `cluster ${list(target.clusterNodes ?? [])}`,
        check: CLUSTER_CHECK,
      };
    case 'sentinel':
      return {
        address: `master "${target.sentinel?.name ?? ''}" of sentinels ${list(target.sentinel?.nodes ?? [])}`,
        check: 'check that the sentinels run and know that master, and that redis.sentinel.nodes (REDIS_SENTINEL_NODES) and redis.sentinel.name (REDIS_SENTINEL_NAME) name them',
      };
    case 'single':
      return { address: redisAddressOf(target.url), check: SINGLE_CHECK };
  }
}
