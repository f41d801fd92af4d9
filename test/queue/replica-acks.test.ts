// Issue 16, SPEC 1, 22, 25: with redis.replicaAcks an accept is answered
// only once that many replicas have it. On servers of the test's own (a
// master and its replica; behind Sentinel; a six-node Cluster), the
// replica of the master holding our keys is stopped (SIGSTOP): the accept
// is refused with the reason in words, and repeated once the replica runs
// again it is accepted as the same job, once.
import { once } from 'node:events';
import { expect } from 'chai';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createProvisionerClient, ProducerConfigError, ReplicaAcksError, RedisUnavailableError, type ProvisionerClient } from '../../src/client.js';
import { loadConfig } from '../../src/config/index.js';
import { VM_QUEUE } from '../../src/queue/queues.js';
import { keyPrefixOf, type RedisConnection } from '../../src/queue/redis-target.js';
import { connected, createProducerConnection, createWorkerConnection } from '../../src/queue/connection.js';
import { replicaAcks } from '../../src/queue/replica-acks.js';
import type { RedisClient } from '../../src/redis-script.js';
import { Cluster } from 'ioredis';
import { startOwnCluster, type OwnCluster } from '../support/redis-cluster.js';
import { startOwnSentinels, type OwnSentinels } from '../support/redis-sentinel.js';
import { uniquePrefix } from '../support/redis.js';
import { rejection } from '../support/rejection.js';
import { scaledByLoad } from '../support/machine.js';

/** A replica in sync confirms within this on a quiet machine; a stopped one never does, so a refusal takes this long. */
const QUIET_TIMEOUT_MS = 300;
/** How long the replica may take to catch up (its first sync's first acknowledgement, a backlog after SIGCONT) before a test fails. */
const CATCH_UP_MS = 30_000;
const URL_OF_FLEET = 'redis://127.0.0.1:6379';
/** A Cluster node silent this long is failed over: far beyond any stall of a loaded machine, and beyond a test's SIGSTOP. */
const NO_FAILOVER_NODE_TIMEOUT_MS = 60_000;

async function onPort<T>(port: number, what: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    return await what(redis);
  } finally {
    redis.disconnect();
  }
}

/** The ports of a master's replicas, as the master lists them (ROLE). */
async function replicasOf(masterPort: number): Promise<number[]> {
  const role = (await onPort(masterPort, (r) => r.call('ROLE'))) as [string, number, [string, string, string][]];
  return role[2].map(([, port]) => Number(port));
}

async function pidOf(port: number): Promise<number> {
  const info = await onPort(port, (r) => r.info('server'));
  return Number(/process_id:(\d+)/.exec(info)?.[1]);
}

/**
 * Resolves once every replica of the master on this port has acknowledged
 * a write made now (WAIT, up to CATCH_UP_MS): before a test's first write,
 * a replica just synced may not have acknowledged anything yet, and after
 * a SIGCONT it has a backlog to take. `key` must hash to that master.
 */
async function replicasCaughtUp(masterPort: number, key: string): Promise<void> {
  const replicas = (await replicasOf(masterPort)).length;
  const acked = await onPort(masterPort, async (r) => {
    await r.set(key, String(Date.now()));
    return Number(await r.call('WAIT', String(replicas), String(CATCH_UP_MS)));
  });
  if (acked < replicas) throw new Error(`only ${acked} of ${replicas} replicas of 127.0.0.1:${masterPort} caught up within ${CATCH_UP_MS} ms`);
}

/** SIGSTOPs the server on this port; the returned function lets it run again. */
async function stopped(port: number): Promise<() => void> {
  const pid = await pidOf(port);
  process.kill(pid, 'SIGSTOP');
  return () => process.kill(pid, 'SIGCONT');
}

interface Setup {
  connection: RedisConnection;
  /** The port of the master holding this prefix's keys. */
  masterOf(prefix: string): Promise<number>;
  close(): Promise<void>;
}

const setups: Record<string, () => Promise<Setup>> = {
  'a single Redis with a replica': async () => {
    const set = await startOwnSentinels();
    return { connection: { url: `redis://127.0.0.1:${set.masterPort}` }, masterOf: () => Promise.resolve(set.masterPort), close: () => set.close() };
  },
  'a Sentinel master': async () => {
    const set: OwnSentinels = await startOwnSentinels();
    return { connection: { url: URL_OF_FLEET, sentinel: { nodes: set.sentinels, name: set.name } }, masterOf: () => Promise.resolve(set.masterPort), close: () => set.close() };
  },
  'a Redis Cluster': async () => {
    // No failover wanted here: with the failover tests' 2 s a loaded machine's stall made the replica the master mid-test.
    const cluster: OwnCluster = await startOwnCluster(NO_FAILOVER_NODE_TIMEOUT_MS);
    return { connection: { url: URL_OF_FLEET, clusterNodes: cluster.nodes }, masterOf: (prefix) => cluster.masterOf(`{${prefix}}`), close: () => cluster.close() };
  },
};

describe('redis.replicaAcks: an accept waits for replicas (issue 16, SPEC 1, 22, 25)', function () {
  this.timeout(120_000);

  it('refuses a bad value naming the key, in the config and in the producer library', () => {
    expect(() => loadConfig({ env: { REDIS_REPLICA_ACKS: '-1' } })).to.throw(/redis\.replicaAcks: must be a whole number of at least 0/);
    expect(() => loadConfig({ env: { REDIS_REPLICA_ACKS: '1.5' } })).to.throw(/redis\.replicaAcks/);
    expect(() => loadConfig({ env: { REDIS_REPLICA_ACK_TIMEOUT_MS: '0' } })).to.throw(/redis\.replicaAckTimeoutMs: must be a whole number of at least 1/);
    expect(loadConfig({ env: {} }).redis).to.include({ replicaAcks: 0, replicaAckTimeoutMs: 1000 });
    expect(() => createProvisionerClient({ redisUrl: URL_OF_FLEET, redis: { url: URL_OF_FLEET, replicaAcks: -1 }, prefix: 'p' })).to.throw(ProducerConfigError, /redis\.replicaAcks is -1/);
    expect(() => createProvisionerClient({ redisUrl: URL_OF_FLEET, redis: { url: URL_OF_FLEET, replicaAckTimeoutMs: 0 }, prefix: 'p' })).to.throw(ProducerConfigError, /redis\.replicaAckTimeoutMs is 0/);
  });

  it('with replicaAcks 0, the default, adds nothing to an accept: no command of its own, no round trip', async () => {
    const untouched = new Proxy({}, {
      get(_target, key) {
        throw new Error(`the accept used redis.${String(key)}`);
      },
    }) as RedisClient;
    for (const connection of [{ url: URL_OF_FLEET }, { url: URL_OF_FLEET, replicaAcks: 0 }]) {
      expect(await replicaAcks(untouched, 'p', connection).confirmed(() => Promise.resolve('written'))).to.equal('written');
    }
  });

  for (const [where, start] of Object.entries(setups)) {
    describe(`on ${where}`, () => {
      let setup: Setup;
      let client: ProvisionerClient;
      let waitless: ProvisionerClient;
      let prefix: string;
      let replica: number;
      let master: number;
      let timeoutMs: number;
      let resume: (() => void) | undefined;
      /** The replica is in sync: before a write that must be confirmed. */
      const caughtUp = (): Promise<void> => replicasCaughtUp(master, `{${prefix}}:replica-probe`);
      /** Stops the replica of the master that holds our keys now, read again (a failover would have swapped them). */
      const stopReplica = async (): Promise<() => void> => {
        master = await setup.masterOf(prefix);
        [replica] = (await replicasOf(master)) as [number];
        return stopped(replica);
      };
      /** Lets the stopped replica run again, and waits until it has caught up. */
      const resumed = async (): Promise<void> => {
        resume?.();
        resume = undefined;
        await caughtUp();
      };

      before(async () => {
        setup = await start();
        prefix = uniquePrefix('replica-acks');
        master = await setup.masterOf(prefix);
        [replica] = (await replicasOf(master)) as [number];
        timeoutMs = scaledByLoad(QUIET_TIMEOUT_MS);
        client = createProvisionerClient({ redisUrl: setup.connection.url, redis: { ...setup.connection, replicaAcks: 1, replicaAckTimeoutMs: timeoutMs }, prefix });
        waitless = createProvisionerClient({ redisUrl: setup.connection.url, redis: setup.connection, prefix });
      });
      afterEach(() => {
        resume?.();
        resume = undefined;
      });
      after(async () => {
        await client?.close();
        await waitless?.close();
        await setup?.close();
      });

      it('accepts a create while the replica keeps up', async () => {
        await caughtUp();
        const result = await client.createVm({ name: 'kept-up' });
        expect(result.existing).to.equal(false);
        expect(await client.getJob(result.jobId)).to.not.equal(undefined);
      });

      it('refuses a create while the replica is stopped, saying so, and takes the same create once it runs again, as one job', async () => {
        resume = await stopReplica();
        // Several names: a WAIT sent to some other node than our master would let one through.
        const names = ['unconfirmed-0', 'unconfirmed-1', 'unconfirmed-2', 'unconfirmed-3'];
        for (const name of names) {
          const err = await rejection(client.createVm({ name, uid: `uid-${name}` }));
          expect(err, name).to.be.instanceOf(ReplicaAcksError);
          expect(err).to.be.instanceOf(RedisUnavailableError);
          // Its own name, as SpecConflictError has: a log or a caller going by err.name tells it from Redis down.
          expect(err.name).to.equal('ReplicaAcksError');
          expect(err.message).to.match(new RegExp(`^Redis accepted the write but only 0 of 1 replicas confirmed it within ${timeoutMs} ms: check`));
        }
        // Without replicaAcks the same Redis answers at once, as before.
        expect((await waitless.createVm({ name: 'not-waited' })).existing).to.equal(false);
        await resumed();
        for (const name of names) {
          const again = await client.createVm({ name, uid: `uid-${name}` });
          // The master had the record: the repeat is the same request, not a second one.
          expect(again.existing, name).to.equal(true);
          expect(again.generation).to.equal(1);
          expect(await client.getJob(again.jobId)).to.not.equal(undefined);
        }
        const watcher = createWorkerConnection(setup.connection);
        const queue = new Queue(VM_QUEUE, { connection: watcher, prefix: keyPrefixOf(prefix, setup.connection) });
        try {
          const jobs = await queue.getJobs(['waiting', 'prioritized', 'delayed', 'active']);
          for (const name of names) expect(jobs.filter((job) => (job.data as { name?: string }).name === name).length, name).to.equal(1);
        } finally {
          await queue.close();
          watcher.disconnect();
        }
      });

      it('refuses the same create repeated on another connection while the replica is still stopped', async () => {
        const other = createProvisionerClient({ redisUrl: setup.connection.url, redis: { ...setup.connection, replicaAcks: 1, replicaAckTimeoutMs: timeoutMs }, prefix });
        try {
          // A confirmed accept first: the replica has acknowledged everything this connection wrote so far.
          await caughtUp();
          await other.createVm({ name: 'other-warm-up' });
          resume = await stopReplica();
          expect(await rejection(client.createVm({ name: 'repeated', uid: 'uid-repeated' }))).to.be.instanceOf(ReplicaAcksError);
          // The record is on the master already, so this one writes nothing of its own: its WAIT must still cover the record.
          expect(await rejection(other.createVm({ name: 'repeated', uid: 'uid-repeated' }))).to.be.instanceOf(ReplicaAcksError);
          await resumed();
          expect((await other.createVm({ name: 'repeated', uid: 'uid-repeated' })).existing).to.equal(true);
        } finally {
          await other.close();
        }
      });

      it('refuses an accept whose connection to the master was made again between its writes and the WAIT', async () => {
        const redis = await connected(createProducerConnection(setup.connection));
        const keyPrefix = keyPrefixOf(prefix, setup.connection);
        const acks = replicaAcks(redis, keyPrefix, { ...setup.connection, replicaAcks: 1, replicaAckTimeoutMs: timeoutMs });
        try {
          const err = await rejection(
            acks.confirmed(async () => {
              await redis.set(`${keyPrefix}:before-reconnect`, 'x');
              // Another connection now: after a failover it would be to the promoted replica, which may lack the write.
              if (redis instanceof Cluster) {
                const slot = Number(await redis.call('CLUSTER', 'KEYSLOT', keyPrefix));
                const master = redis.slots[slot]?.[0];
                for (const node of redis.nodes('master')) if (`${node.options.host}:${node.options.port}` === master) node.disconnect();
                await connected(redis);
              } else {
                const again = once(redis, 'ready');
                redis.disconnect(true);
                await again;
              }
              await redis.set(`${keyPrefix}:after-reconnect`, 'x');
            }),
          );
          expect(err).to.be.instanceOf(ReplicaAcksError);
          expect(err.message).to.match(/^Redis accepted the write but the master holding its keys changed during the request/);
          // The next accept on the new connection is confirmed as usual.
          expect(await acks.confirmed(() => redis.set(`${keyPrefix}:next`, 'x'))).to.equal('OK');
        } finally {
          redis.disconnect();
        }
      });

      it('refuses a delete and a check alike while the replica is stopped', async () => {
        resume = await stopReplica();
        expect(await rejection(client.deleteVm({ name: 'kept-up' }))).to.be.instanceOf(ReplicaAcksError);
        expect(await rejection(client.checkVm({ name: 'kept-up' }))).to.be.instanceOf(ReplicaAcksError);
        await resumed();
        expect((await client.deleteVm({ name: 'kept-up' })).existing).to.equal(true);
      });
    });
  }
});
