// SPEC 27: a listing filtered by state or node reads the index kept with
// the records, so a page costs about its limit in Redis work whatever the
// registry holds; records an older release wrote (no index) are listed
// all the same, and an entry its record no longer fits is never listed.
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { keys } from '../../src/redis-keys.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { CAN_MONITOR, monitorPrefix, type RedisMonitor } from '../support/redis-monitor.js';
import { deletePrefix, keyPrefix, newRedis, uniquePrefix } from '../support/redis.js';

const NAMES = 2000;
const nameOf = (i: number): string => `idx-${String(i).padStart(4, '0')}`;
/** `SMEMBERS 1, HMGET 2000`: the commands by name, counted. */
const summary = (commands: string[]): string => [...new Set(commands)].map((name) => `${name} ${commands.filter((c) => c === name).length}`).join(', ');
const seen = (node: string): { state: string; node: string; at: string } => ({ state: 'Running', node, at: new Date().toISOString() });

describe('the listing index: filtered pages cost about their limit (SPEC 27)', function () {
  this.timeout(120_000);
  let redis: Redis;
  let prefix: string;
  let registry: DesiredStateRegistry;
  let monitor: RedisMonitor | undefined;

  beforeEach(async () => {
    redis = newRedis();
    // Connected before a test may skip, so the cleanup after it can scan (a Cluster connects lazily).
    await redis.ping();
    prefix = keyPrefix(uniquePrefix('vm-index'));
    registry = new DesiredStateRegistry(redis, prefix, 3600);
  });
  afterEach(async () => {
    monitor?.close();
    monitor = undefined;
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  async function createMany(count: number, node?: (i: number) => string): Promise<void> {
    for (let i = 0; i < count; i += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, count - i) }, async (_, j) => {
          const name = nameOf(i + j);
          await registry.recordPresent(name, `uid-${name}`, { name });
          if (node) await registry.recordLastKnown(name, seen(node(i + j)));
        }),
      );
    }
  }

  it(`a page of 1 filtered by a node with no VMs, or by a node with one, among ${NAMES} names runs a handful of Redis commands`, async function () {
    if (!CAN_MONITOR) this.skip();
    await createMany(NAMES, (i) => (i === 1500 ? 'pve2' : 'pve1'));
    // The first page may build the index; what is measured is a page after it.
    await registry.page({ limit: 1, node: 'pve9' });
    monitor = await monitorPrefix(prefix);

    const none = await registry.page({ limit: 1, node: 'pve9' });
    await monitor.settle();
    const noneCost = monitor.commands();
    monitor.reset();
    const one = await registry.page({ limit: 1, node: 'pve2', state: 'present' });
    await monitor.settle();
    const oneCost = monitor.commands();

    expect(none).to.deep.equal({ records: [], more: false });
    expect(one.records.map((r) => r.name)).to.deep.equal([nameOf(1500)]);
    expect(one.more).to.equal(false);
    expect(noneCost.length, summary(noneCost)).to.be.at.most(10);
    expect(oneCost.length, summary(oneCost)).to.be.at.most(20);
  });

  it('lists records an older release wrote (no index), the first page building it, and names it writes later too', async () => {
    // An older release's writes: the record hash and the set of names, nothing else.
    const oldWrite = async (name: string, node: string): Promise<void> => {
      await redis.hset(keys.desired(prefix, name), { state: 'present', uid: `uid-${name}`, generation: '1', updatedAt: new Date().toISOString(), lastKnown: JSON.stringify(seen(node)) });
      await redis.sadd(keys.desiredIndex(prefix), name);
    };
    await oldWrite('old-a', 'pve1');
    await oldWrite('old-b', 'pve2');
    await createMany(3, () => 'pve2');

    const pve2 = await registry.page({ limit: 10, node: 'pve2' });
    expect(pve2.records.map((r) => r.name)).to.deep.equal([nameOf(0), nameOf(1), nameOf(2), 'old-b']);
    expect((await registry.page({ limit: 10, state: 'present' })).records.map((r) => r.name)).to.deep.equal([nameOf(0), nameOf(1), nameOf(2), 'old-a', 'old-b']);

    // Built: an older release still running writes one more name.
    await oldWrite('old-c', 'pve2');
    expect((await registry.page({ limit: 10, node: 'pve2' })).records.map((r) => r.name)).to.deep.equal([nameOf(0), nameOf(1), nameOf(2), 'old-b', 'old-c']);
  });

  it('follows a VM to another node and a name to absent, and leaves out a tombstone that expired', async () => {
    // Built before the writes, so what is listed is what the writes filed.
    expect((await registry.page({ limit: 10, node: 'pve1' })).records).to.deep.equal([]);
    await createMany(3, () => 'pve1');
    await registry.recordLastKnown(nameOf(0), seen('pve2'));
    await registry.recordAbsent(nameOf(1), `uid-${nameOf(1)}`);
    const names = async (query: { state?: 'present' | 'absent'; node?: string }): Promise<string[]> => (await registry.page({ limit: 10, ...query })).records.map((r) => r.name);

    expect(await names({ node: 'pve1' })).to.deep.equal([nameOf(1), nameOf(2)]);
    expect(await names({ node: 'pve2' })).to.deep.equal([nameOf(0)]);
    expect(await names({ state: 'absent' })).to.deep.equal([nameOf(1)]);
    expect(await names({ state: 'present', node: 'pve1' })).to.deep.equal([nameOf(2)]);

    // The tombstone expires: Redis drops the record, the index still names it until a page reads it.
    await redis.del(keys.desired(prefix, nameOf(1)));
    expect(await names({ state: 'absent' })).to.deep.equal([]);
    expect(await names({ node: 'pve1' })).to.deep.equal([nameOf(2)]);
    expect(await names({})).to.deep.equal([nameOf(0), nameOf(2)]);
  });

  it('forgets an expired tombstone in every set of the index once a sweep lists the registry, so the index does not grow with deleted names', async () => {
    await registry.page({ limit: 1 });
    await createMany(2, () => 'pve1');
    await registry.recordAbsent(nameOf(0), `uid-${nameOf(0)}`);
    // The tombstone expires; no page reads the sets it is filed in, a sweep lists the registry.
    await redis.del(keys.desired(prefix, nameOf(0)));
    expect((await registry.list()).map((r) => r.name)).to.deep.equal([nameOf(1)]);

    const stem = keys.desiredBy(prefix);
    const sets = ['all', 'state:absent', 'state:present', 'node:pve1', 'node-state:absent:pve1', 'node-state:present:pve1'];
    const members = await Promise.all(sets.map(async (set) => [set, await redis.zrange(`${stem}:${set}`, 0, -1)] as const));
    expect(Object.fromEntries(members)).to.deep.equal({
      all: [nameOf(1)],
      'state:absent': [],
      'state:present': [nameOf(1)],
      'node:pve1': [nameOf(1)],
      'node-state:absent:pve1': [],
      'node-state:present:pve1': [nameOf(1)],
    });
    expect(await redis.smembers(keys.desiredIndex(prefix))).to.deep.equal([nameOf(1)]);
  });
});
