// A Redis of several servers for a test (SPEC 25): a six-node Cluster or a
// Sentinel set, with the connection description and environment that put
// the service on it, and a failover: the master that holds our keys
// SIGKILLed, then the wait until a replica has taken over.
import type { RedisConnection } from '../../src/queue/redis-target.js';
import { startOwnCluster } from './redis-cluster.js';
import { startOwnSentinels } from './redis-sentinel.js';

export type FleetKind = 'cluster' | 'sentinel';

export interface Failover {
  killedPort: number;
  promotedPort: number;
  /** From the SIGKILL until the servers name the new master. */
  promotedAfterMs: number;
  /** From the SIGKILL until the killed server, started again, is the new master's replica in sync. */
  replicaBackAfterMs: number;
}

export interface RedisFleet {
  kind: FleetKind;
  connection: RedisConnection;
  /** The environment variables of SPEC 7 that name it (REDIS_CLUSTER_NODES, or REDIS_SENTINEL_NODES and _NAME). */
  env: Record<string, string>;
  /**
   * SIGKILLs the master that holds the keys of this prefix, waits for its
   * replica to take over, then starts the killed server again (a
   * supervisor's restart) and waits until it is the new master's replica.
   */
  failover(prefix: string, onKill?: () => void): Promise<Failover>;
  close(): Promise<void>;
}

// redis.url gives the scheme and credentials on a Cluster or behind Sentinel; its host is not used.
const URL_OF_FLEET = 'redis://127.0.0.1:6379';

export async function startRedisFleet(kind: FleetKind): Promise<RedisFleet> {
  if (kind === 'cluster') {
    const cluster = await startOwnCluster();
    return {
      kind,
      connection: { url: URL_OF_FLEET, clusterNodes: cluster.nodes },
      env: { REDIS_CLUSTER_NODES: cluster.nodes.join(',') },
      async failover(prefix, onKill) {
        const tag = `{${prefix}}`;
        const killedPort = await cluster.masterOf(tag);
        const killedAt = Date.now();
        cluster.kill(killedPort);
        onKill?.();
        const promotedPort = await cluster.promoted(tag, killedPort);
        const promotedAfterMs = Date.now() - killedAt;
        await cluster.restart(killedPort);
        return { killedPort, promotedPort, promotedAfterMs, replicaBackAfterMs: Date.now() - killedAt };
      },
      close: () => cluster.close(),
    };
  }
  const set = await startOwnSentinels();
  return {
    kind,
    connection: { url: URL_OF_FLEET, sentinel: { nodes: set.sentinels, name: set.name } },
    env: { REDIS_SENTINEL_NODES: set.sentinels.join(','), REDIS_SENTINEL_NAME: set.name },
    async failover(_prefix, onKill) {
      const killedPort = set.masterPort;
      const killedAt = Date.now();
      set.killMaster();
      onKill?.();
      const promotedPort = await set.promoted(killedPort);
      const promotedAfterMs = Date.now() - killedAt;
      await set.restart(killedPort, promotedPort);
      return { killedPort, promotedPort, promotedAfterMs, replicaBackAfterMs: Date.now() - killedAt };
    },
    close: () => set.close(),
  };
}
