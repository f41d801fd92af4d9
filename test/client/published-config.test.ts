// SPEC 6, 27: the service's web and worker processes publish what a
// producer needs of their config under the prefix, and a client given no
// config goes by it: it refuses what those workers would and fills the
// sizes a create leaves out from their defaults. Nothing published: the
// built-in defaults. Given a config, the client uses it and is told when
// the published one means other jobs.
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { PRODUCER_DEFAULTS, ProducerConfigError, RedisUnavailableError, ValidationError, createProvisionerClient, createUncheckedProvisionerClient } from '../../src/client.js';
import type { ConfigMismatch, UncheckedProvisionerClient } from '../../src/client.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { keys } from '../../src/redis-keys.js';
import { producerConfigPublisher } from '../../src/queue/producer-config-store.js';
import { startWebServer } from '../../src/web/server.js';
import { startOwnRedis } from '../e2e/redis-server.js';
import { createHarness, type Harness } from '../support/harness.js';
import { REDIS_CLUSTER_NODES, REDIS_URL, deletePrefix, keyPrefix, eventually, newRedis, testConfig, uniquePrefix } from '../support/redis.js';

/** A service config other than the defaults in every key a job's meaning depends on. */
const SERVICE = {
  proxmox: {
    nodes: [
      { name: 'edge-a', isoStorage: 'seeds' },
      { name: 'edge-b', isoStorage: 'seeds' },
    ],
    images: [
      { name: 'debian', templates: { 'edge-a': 9001, 'edge-b': 9002 } },
      { name: 'alpine', templates: { 'edge-b': 9102 } },
    ],
    defaults: { cores: 3, memoryMiB: 1024, diskGiB: 12 },
    limits: { maxCores: 4 },
  },
};

async function refusal(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => undefined,
    (err: unknown) => err,
  );
}

function fieldsOf(err: unknown): string[] {
  expect(err).to.be.instanceOf(ValidationError);
  return (err as ValidationError).fields.map((f) => f.field);
}

describe('the producer library takes the workers config from Redis (SPEC 6, 27)', () => {
  let h: Harness | undefined;
  const clients: UncheckedProvisionerClient[] = [];
  const client = (options: Partial<Parameters<typeof createUncheckedProvisionerClient>[0]> = {}): UncheckedProvisionerClient => {
    // The workers' Redis, a Cluster under `npm run test:cluster`; a test of its own Redis names its redisUrl.
    const shared = options.redisUrl === undefined ? { redis: { url: REDIS_URL, clusterNodes: REDIS_CLUSTER_NODES } } : {};
    const made = createUncheckedProvisionerClient({ redisUrl: REDIS_URL, prefix: h?.config.redis.prefix ?? 'unused', ...shared, ...options });
    clients.push(made);
    return made;
  };

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await h?.close();
    h = undefined;
  });

  it('given no config, refuses what a worker on another config would, naming the field, and fills sizes from its defaults', async () => {
    h = createHarness('published', { config: SERVICE });
    await h.startWorker();
    const producer = client();
    expect(fieldsOf(await refusal(producer.createVm({ name: 'big-1', cores: 5 })))).to.deep.equal(['cores']);
    expect(fieldsOf(await refusal(producer.createVm({ name: 'off-1', node: 'pve1' })))).to.deep.equal(['node']);
    expect(fieldsOf(await refusal(producer.createVm({ name: 'img-1', image: 'ubuntu' })))).to.deep.equal(['image']);
    expect(fieldsOf(await refusal(producer.createVm({ name: 'img-2', image: 'alpine', node: 'edge-a' })))).to.deep.equal(['image']);
    expect(fieldsOf(await refusal(producer.enqueueJob('check', { name: 'Not_A_Label' })))).to.deep.equal(['name']);

    const { jobId } = await producer.createVm({ name: 'sized-1', cores: 4, node: 'edge-b' });
    const defaulted = await producer.createVm({ name: 'sized-2' });
    expect((await producer.getVm('sized-2'))?.spec).to.deep.include({ cores: 3, memoryMiB: 1024, diskGiB: 12, image: 'debian' });
    expect((await h.queues.vm.getJob(defaulted.jobId))?.data).to.deep.include({ cores: 3, memoryMiB: 1024, diskGiB: 12 });
    expect((await producer.getVm('sized-1'))?.spec).to.deep.include({ cores: 4, node: 'edge-b' });
    expect(jobId).to.be.a('string');
  });

  it('the web process publishes it too, so a client works against a web server alone', async () => {
    const prefix = uniquePrefix('published-web');
    const config = testConfig(prefix, { ...SERVICE, http: { authDisabled: true } });
    const server = await startWebServer(config, silentLogger(), { metrics: createMetrics(), port: 0 });
    const redis = newRedis();
    try {
      const producer = createProvisionerClient({ redisUrl: REDIS_URL, redis: { url: REDIS_URL, clusterNodes: REDIS_CLUSTER_NODES }, prefix });
      const err = await refusal(producer.createVm({ name: 'web-1', cores: 5, node: 'pve2' }));
      await producer.close();
      expect(fieldsOf(err)).to.deep.equal(['node', 'cores']);
      expect(JSON.parse((await redis.get(keys.producerConfig(keyPrefix(prefix)))) ?? '{}')).to.have.property('version', 1);
    } finally {
      await server.close();
      await deletePrefix(redis, prefix);
      redis.disconnect();
    }
  });

  it("with nothing published (an older or not yet started service), goes by the built-in defaults", async () => {
    h = createHarness('unpublished');
    const producer = client();
    const err = await refusal(producer.createVm({ name: 'big-2', cores: PRODUCER_DEFAULTS.proxmox.limits.maxCores + 1, node: 'edge-a' }));
    expect(fieldsOf(err)).to.deep.equal(['node', 'cores']);
    await producer.createVm({ name: 'plain-1', node: 'pve2' });
    expect((await producer.getVm('plain-1'))?.spec).to.deep.include({ ...PRODUCER_DEFAULTS.proxmox.defaults, image: 'default' });
  });

  it('given no config and no Redis, a create is a RedisUnavailableError, bad input too: what is valid is not known yet', async () => {
    const down = createProvisionerClient({ redisUrl: 'redis://127.0.0.1:1', prefix: 'unused' });
    const err = await refusal(down.createVm({ name: 'big-3', cores: 10_000 }));
    await down.close();
    expect(err).to.be.instanceOf(RedisUnavailableError);
  });

  it('after its first call, a Redis gone is still a RedisUnavailableError at once', async () => {
    const own = await startOwnRedis();
    const producer = createProvisionerClient({ redisUrl: own.url, prefix: uniquePrefix('gone') });
    try {
      await producer.createVm({ name: 'before-1' });
      await own.stop();
      expect(await refusal(producer.createVm({ name: 'after-1' }))).to.be.instanceOf(RedisUnavailableError);
    } finally {
      await producer.close();
      await own.close();
    }
  });

  it('given a config that differs from the published one, goes by the given one and tells onConfigMismatch each differing key once', async () => {
    h = createHarness('mismatch', { config: SERVICE });
    await h.startWorker();
    const heard: ConfigMismatch[] = [];
    const producer = client({ config: { proxmox: { nodes: [{ name: 'edge-a' }, { name: 'edge-b' }], limits: { maxCores: 8 } } }, onConfigMismatch: (m) => heard.push(m) });
    await producer.createVm({ name: 'given-1', cores: 6, node: 'edge-a' });
    await producer.createVm({ name: 'given-2', cores: 1 });
    expect((await producer.getVm('given-2'))?.spec).to.deep.include({ cores: 1, memoryMiB: PRODUCER_DEFAULTS.proxmox.defaults.memoryMiB, image: 'default' });
    expect(heard).to.have.length(1);
    expect(heard[0]?.redisKey).to.equal(keys.producerConfig(h.prefix));
    expect(heard[0]?.differences.map((d) => d.key)).to.deep.equal([
      'proxmox.defaults.cores',
      'proxmox.defaults.memoryMiB',
      'proxmox.defaults.diskGiB',
      'proxmox.limits.maxCores',
      'proxmox.images',
      'proxmox.defaultImage',
    ]);
    expect(heard[0]?.differences.find((d) => d.key === 'proxmox.limits.maxCores')).to.deep.equal({ key: 'proxmox.limits.maxCores', given: '8', published: '4' });
    expect(heard[0]?.message).to.contain('proxmox.limits.maxCores (given 8, the service\'s 4)');
  });

  it('given the config the workers run with, hears nothing; without a callback, a mismatch is a process warning', async () => {
    h = createHarness('match', { config: SERVICE });
    await h.startWorker();
    const heard: ConfigMismatch[] = [];
    await client({ config: h.config, onConfigMismatch: (m) => heard.push(m) }).getVm('none');
    expect(heard).to.deep.equal([]);

    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      await client({ config: { proxmox: { limits: { maxCores: 4 } } } }).getVm('none');
      await eventually(() => Promise.resolve(warnings.length > 0 ? true : undefined), 2_000);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings[0]).to.include({ name: 'ProducerConfigWarning', code: 'PVEP_PRODUCER_CONFIG' });
    expect(warnings[0]?.message).to.contain('proxmox.nodes');
  });

  it('a published config this client cannot read (a newer version) is a ProducerConfigError given no config, and only reported given one', async () => {
    h = createHarness('newer');
    await h.redis.set(keys.producerConfig(h.prefix), JSON.stringify({ version: 4, config: {} }));
    const err = await refusal(client().createVm({ name: 'newer-1' }));
    expect(err).to.be.instanceOf(ProducerConfigError);
    expect((err as Error).message).to.match(/producer-config has version 4; this client reads versions 1, 2, 3/);
    const heard: ConfigMismatch[] = [];
    await client({ config: h.config, onConfigMismatch: (m) => heard.push(m) }).createVm({ name: 'newer-2' });
    expect(heard.map((m) => m.differences)).to.deep.equal([[]]);
  });

  it('is written again when Redis comes back without it (a restart without persistence)', async () => {
    const prefix = uniquePrefix('republish');
    const redis: Redis = newRedis();
    const publisher = producerConfigPublisher(redis, prefix, testConfig(prefix, SERVICE));
    try {
      await publisher.write();
      await redis.del(keys.producerConfig(prefix));
      redis.disconnect(true);
      const text = await eventually(async () => (await redis.get(keys.producerConfig(prefix))) ?? undefined);
      expect((JSON.parse(text) as { config: { proxmox: { limits: { maxCores: number } } } }).config.proxmox.limits.maxCores).to.equal(4);
    } finally {
      publisher.stop();
      await deletePrefix(redis, prefix);
      redis.disconnect();
    }
  });
});
