// SPEC 29 (issue 31): the address lease is taken at the door, in the
// script that records the name present, on the real Redis through the
// producer library. Addresses go out in order from the pool's cursor,
// skipping the gateway, the excluded and the cooling ones; a repeat and an
// in-place change keep the address; an exhausted pool records nothing;
// fifty creates at once on a pool of forty never share an address.
import { expect } from 'chai';
import { PoolExhaustedError, ValidationError } from '../../src/client.js';
import type { EnqueueResult } from '../../src/client.js';
import type { AddressLease } from '../../src/addresses/types.js';
import { keys } from '../../src/redis-keys.js';
import type { CreateResult, CreateSpec, OperationContext } from '../../src/provider/types.js';
import { createHarness, type Harness } from '../support/harness.js';
import { RecordingProvider } from '../support/recording-provider.js';
import { rejection } from '../support/rejection.js';

const NODES = [
  { name: 'pve1', template: 9001, isoStorage: 'proxy-seeds', bridge: 'vmbr1' },
  { name: 'pve2', template: 9002, isoStorage: 'proxy-seeds', bridge: 'vmbr1' },
];
/** .10 to .15: .11 the gateway and .13 excluded, so four to hand out. */
const SMALL = { name: 'lan', bridge: 'vmbr1', cidr: '127.77.0.0/24', gateway: '127.77.0.11', dns: ['127.0.0.53'], first: '127.77.0.10', last: '127.77.0.15', exclude: ['127.77.0.13'] };

function pooled(what: string, pool: Record<string, unknown> = SMALL, nodes: unknown[] = NODES): Harness {
  return createHarness(what, { config: { proxmox: { nodes, networks: [pool] } } });
}

/** The provider double, noting the spec each create is given. */
class SpecNotingProvider extends RecordingProvider {
  readonly specs: CreateSpec[] = [];
  override create(spec: CreateSpec, ctx: OperationContext): Promise<CreateResult> {
    this.specs.push(spec);
    return super.create(spec, ctx);
  }
}

async function jobAddress(h: Harness, jobId: string): Promise<AddressLease | undefined> {
  return ((await h.queues.vm.getJob(jobId))?.data as { address?: AddressLease } | undefined)?.address;
}

describe('address pools at the door (SPEC 29)', function () {
  let h: Harness;
  afterEach(() => h.close());

  it('hands out the range in order, skipping the gateway and the excluded address; the answer, the record and the job carry the lease', async () => {
    h = pooled('pool-order');
    const answers: EnqueueResult[] = [];
    for (const name of ['a-1', 'a-2', 'a-3', 'a-4']) answers.push(await h.client.createVm({ name, uid: `u-${name}` }));
    expect(answers.map((a) => a.address)).to.deep.equal(['127.77.0.10', '127.77.0.12', '127.77.0.14', '127.77.0.15']);
    expect(answers.map((a) => a.addressPool)).to.deep.equal(['lan', 'lan', 'lan', 'lan']);
    const [first] = answers;
    const lease = await jobAddress(h, first?.jobId ?? '');
    expect(lease).to.deep.include({ pool: 'lan', address: '127.77.0.10', prefixLength: 24, gateway: '127.77.0.11', dns: ['127.0.0.53'], uid: 'u-a-1' });
    expect(Date.parse(lease?.takenAt ?? '')).to.be.closeTo(Date.now(), 60_000);
    expect(await h.client.getVm('a-1')).to.include({ address: '127.77.0.10', addressPool: 'lan' });
    expect(JSON.parse((await h.redis.hget(keys.addressLeases(h.prefix), 'a-1 u-a-1')) ?? '{}')).to.deep.equal(lease);
    expect(await h.redis.hget(keys.addressHeld(h.prefix, 'lan'), '127.77.0.10')).to.equal('a-1 u-a-1');
  });

  it("the worker hands the door's lease to the provider's create, which builds the seed from it", async () => {
    h = pooled('pool-worker');
    const provider = new SpecNotingProvider(h.redis, h.prefix);
    await h.startWorker({ provider });
    const { jobId } = await h.client.createVm({ name: 'w-1', uid: 'u1' });
    expect((await h.client.waitForJob(jobId, { timeoutMs: 20_000 })).state).to.equal('completed');
    expect(provider.specs.map((spec) => spec.address)).to.deep.equal([await jobAddress(h, jobId)]);
    expect(provider.specs[0]?.address).to.include({ address: '127.77.0.10', uid: 'u1' });
  });

  it('a repeat of the same create and an in-place change keep the address; a re-created name (another uid) gets another', async () => {
    h = pooled('pool-repeat');
    const created = await h.client.createVm({ name: 'r-1', uid: 'u1', cores: 1 });
    const again = await h.client.createVm({ name: 'r-1', uid: 'u1', cores: 1 });
    expect(again).to.include({ existing: true, address: created.address, addressPool: 'lan' });
    const bigger = await h.client.createVm({ name: 'r-1', uid: 'u1', cores: 2 });
    expect(bigger.changes).to.deep.equal(['cores']);
    expect(bigger.address).to.equal(created.address);
    expect((await jobAddress(h, bigger.jobId))?.address).to.equal(created.address);
    await h.client.deleteVm({ name: 'r-1' });
    const other = await h.client.createVm({ name: 'r-1', uid: 'u2', cores: 1 });
    expect(other.address).to.be.a('string').and.not.equal(created.address);
    expect(await h.redis.hlen(keys.addressLeases(h.prefix)), "u1's lease stays until its VM is gone (the release side)").to.equal(2);
  });

  it('an exhausted pool is a PoolExhaustedError naming the pool and network, and records and enqueues nothing', async () => {
    h = pooled('pool-full');
    for (const name of ['f-1', 'f-2', 'f-3', 'f-4']) await h.client.createVm({ name });
    const err = await rejection(h.client.createVm({ name: 'f-5', uid: 'u5' }));
    expect(err).to.be.instanceOf(PoolExhaustedError);
    expect(err).to.include({ vmName: 'f-5', pool: 'lan', network: 'bridge vmbr1, 127.77.0.0/24' });
    expect(err.message).to.match(/address pool lan \(bridge vmbr1, 127\.77\.0\.0\/24\) has no free address for f-5/);
    expect(await h.client.getVm('f-5')).to.equal(undefined);
    expect(await h.redis.hget(keys.generations(h.prefix), 'f-5'), 'no generation handed out').to.equal(null);
    expect(await h.redis.hget(keys.addressLeases(h.prefix), 'f-5 u5')).to.equal(null);
    expect(await h.queues.vm.getJobCountByTypes('waiting', 'delayed', 'active')).to.equal(4);
  });

  it('skips an address still cooling and hands out one whose cooling has passed, removing its entry', async () => {
    h = pooled('pool-cooling');
    const cooling = keys.addressCooling(h.prefix, 'lan');
    await h.redis.zadd(cooling, Date.now() + 3_600_000, '127.77.0.10', Date.now() - 1000, '127.77.0.12');
    const first = await h.client.createVm({ name: 'c-1' });
    expect(first.address, 'the cooling .10 skipped').to.equal('127.77.0.12');
    expect(await h.redis.zscore(cooling, '127.77.0.12'), 'its expired entry removed').to.equal(null);
    expect(await h.redis.zscore(cooling, '127.77.0.10')).to.not.equal(null);
    const rest = [await h.client.createVm({ name: 'c-2' }), await h.client.createVm({ name: 'c-3' })];
    expect(rest.map((r) => r.address)).to.deep.equal(['127.77.0.14', '127.77.0.15']);
    expect(await rejection(h.client.createVm({ name: 'c-4' })), '.10 is still cooling').to.be.instanceOf(PoolExhaustedError);
  });

  it('goes round from the cursor: an address freed by hand is handed out only after the rest of the range', async () => {
    h = pooled('pool-cursor', { ...SMALL, exclude: [] });
    const a = await h.client.createVm({ name: 'k-1', uid: 'u1' });
    await h.client.createVm({ name: 'k-2', uid: 'u2' });
    // The release side's end of a lease, with no cooldown.
    await h.redis.hdel(keys.addressLeases(h.prefix), 'k-1 u1');
    await h.redis.hdel(keys.addressHeld(h.prefix, 'lan'), a.address ?? '');
    const next = await Promise.all(['k-3', 'k-4', 'k-5'].map(async (name) => (await h.client.createVm({ name })).address));
    expect(next.sort()).to.deep.equal(['127.77.0.13', '127.77.0.14', '127.77.0.15']);
    expect((await h.client.createVm({ name: 'k-6' })).address, 'then round to the freed .10').to.equal('127.77.0.10');
  });

  it('fifty creates at once on a pool of forty: forty distinct addresses, ten PoolExhaustedError, no address twice', async () => {
    h = pooled('pool-race', { name: 'lan', bridge: 'vmbr1', cidr: '127.77.0.0/24', first: '127.77.0.1', last: '127.77.0.40' });
    const outcomes = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => h.client.createVm({ name: `race-${i}` })));
    const addresses = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value.address] : []));
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
    expect(addresses).to.have.length(40);
    expect(new Set(addresses).size).to.equal(40);
    expect(refused).to.have.length(10);
    for (const err of refused) expect(err).to.be.instanceOf(PoolExhaustedError);
    const held = await h.redis.hgetall(keys.addressHeld(h.prefix, 'lan'));
    expect(Object.keys(held).sort()).to.deep.equal([...addresses].sort());
    expect(new Set(Object.values(held)).size).to.equal(40);
  });

  it('a create on a network without a pool gets no address (DHCP), a node without a bridge is one', async () => {
    const nodes = [NODES[0], { name: 'pve2', template: 9002, isoStorage: 'proxy-seeds' }];
    h = pooled('pool-none', SMALL, nodes);
    const onPve2 = await h.client.createVm({ name: 'd-1', node: 'pve2' });
    const otherBridge = await h.client.createVm({ name: 'd-2', node: 'pve1', bridge: 'vmbr9' });
    const tagged = await h.client.createVm({ name: 'd-3', node: 'pve1', vlanTag: 7 });
    for (const answer of [onPve2, otherBridge, tagged]) expect(answer).to.not.have.property('address');
    expect(await jobAddress(h, onPve2.jobId)).to.equal(undefined);
    expect(await h.client.getVm('d-1')).to.not.have.property('address');
    const named = await h.client.createVm({ name: 'd-4', node: 'pve2', bridge: 'vmbr1' });
    expect(named.address, "pve2's VM on the pool's bridge when the create names it").to.equal('127.77.0.10');
  });

  it('refuses, recording nothing, a networkConfig on a pooled network and a create whose image\'s nodes are on different networks', async () => {
    const nodes = [NODES[0], { name: 'pve2', template: 9002, isoStorage: 'proxy-seeds', bridge: 'vmbr2' }];
    h = pooled('pool-refusals', SMALL, nodes);
    const own = await rejection(h.client.createVm({ name: 'n-1', node: 'pve1', networkConfig: 'version: 2\n' }));
    expect(own).to.be.instanceOf(ValidationError);
    expect((own as ValidationError).fields).to.deep.equal([
      { field: 'networkConfig', message: "must be absent: the VM's network (bridge vmbr1, 127.77.0.0/24) has address pool lan, which sets its address statically in the seed's network-config" },
    ]);
    const unplaced = await rejection(h.client.createVm({ name: 'n-2' }));
    expect((unplaced as ValidationError).fields).to.deep.equal([
      { field: 'node', message: 'must be named: nodes pve1 and pve2 are on different networks (pve1: pool lan, pve2: no pool); name a node or a bridge' },
    ]);
    expect(await h.client.getVm('n-1')).to.equal(undefined);
    expect(await h.client.getVm('n-2')).to.equal(undefined);
    expect(await h.queues.vm.getJobCountByTypes('waiting', 'delayed', 'active')).to.equal(0);
    // Off the pool, a networkConfig is the caller's own.
    expect(await h.client.createVm({ name: 'n-3', node: 'pve2', networkConfig: 'version: 2\n' })).to.not.have.property('address');
  });
});
