// SPEC 30: the create job's pool paths. A create the accept gave a claim
// takes the member's VM through the provider's claim, then forgets the
// member and enqueues a refill; a claim lost goes the cold way. A member's
// own create, ended Running with its address, makes the member idle, or
// drains it. The pool store is the in-memory fake and the provider a stub:
// neither is under test here (the drain's registry and door are, in
// refill.test.ts).
import { expect } from 'chai';
import { createJob } from '../../jobs/create.js';
import type { JobContext, JobDeps } from '../../jobs/types.js';
import type { LastKnown } from '../../src/desired-state.js';
import { silentLogger } from '../../src/log.js';
import type { PoolJobDeps } from '../../src/pools/job-deps.js';
import type { CreateResult, CreateSpec, DeleteRequest, Provider } from '../../src/provider/types.js';
import type { PoolClaim, PoolConfig, PoolMember } from '../../src/pools/types.js';
import { InMemoryPoolStore } from '../fakes/pool-store.js';
import { NO_ADDRESS_LEASES } from '../support/address-leases.js';
import { NO_TENANT_HOLDS } from '../support/tenant-holds.js';

class ClaimLost extends Error {}

const pool: PoolConfig = { name: 'small', image: 'default', cores: 1, memoryMiB: 512, diskGiB: 10, minIdle: 1, maxIdle: 1, maxAgeMinutes: 0 };
const claim: PoolClaim = { pool: 'small', member: 'pvep-pool-small-1', memberUid: 'mu1', vmid: 101, node: 'pve1', claimedAt: new Date(Date.now() - 1500).toISOString() };

function resultOf(spec: Pick<CreateSpec, 'name' | 'uid'>, vmid: number): CreateResult {
  return { providerId: `vms/${vmid}/${spec.name}`, vmid, node: 'pve1', uid: spec.uid, state: 'Running', address: '192.0.2.10', createdAt: new Date().toISOString(), image: 'default' };
}

interface World {
  deps: JobDeps;
  pools: PoolJobDeps;
  store: InMemoryPoolStore;
  cold: CreateSpec[];
  claimed: PoolClaim[];
  refills: string[];
  drained: string[];
  metrics: string[];
  /** The provider's creates and deletes in order. */
  steps: string[];
  /** The knownVmid each claim was given. */
  knownVmids: (number | undefined)[];
}

function world(claimOutcome: 'renamed' | 'lost' | 'broken' | 'keys-failed' = 'renamed', lastKnownVmid?: number): World {
  const store = new InMemoryPoolStore();
  const w: Omit<World, 'deps' | 'pools'> = { store, cold: [], claimed: [], refills: [], drained: [], metrics: [], steps: [], knownVmids: [] };
  const pools: PoolJobDeps = {
    configured: true,
    store,
    async claim(spec, given, _ctx, hooks) {
      w.claimed.push(given);
      w.knownVmids.push(hooks?.knownVmid);
      if (claimOutcome === 'lost') throw new ClaimLost(`VM ${given.vmid} is gone`);
      if (claimOutcome === 'broken') throw new Error('proxmox said 500');
      await hooks?.renamed?.();
      if (claimOutcome === 'keys-failed') throw new Error('agent/file-write: 500');
      return resultOf(spec, given.vmid);
    },
    isClaimLost: (err) => err instanceof ClaimLost,
    fingerprintOf: (name) => (name === 'small' ? 'fp1' : undefined),
    enqueueRefill(name) {
      w.refills.push(name);
      return Promise.resolve();
    },
    async drain(member) {
      w.drained.push(member.name);
      await store.removeMember(member.pool, member.name);
    },
    refill: () => Promise.resolve([]),
    metrics: {
      // Timed from the claim's claimedAt (1.5 s before this file loaded, which may be minutes before this test runs in a whole suite).
      poolClaimed: (name, seconds) => w.metrics.push(`claimed ${name} ${seconds >= 1.5 && seconds < 3600 ? 'timed' : seconds}`),
      poolMissed: (name) => w.metrics.push(`missed ${name}`),
    },
  };
  const provider = {
    create(spec: CreateSpec) {
      w.cold.push(spec);
      w.steps.push(`create ${spec.name}`);
      return Promise.resolve(resultOf(spec, 200));
    },
    delete(request: DeleteRequest) {
      w.steps.push(`delete ${request.name} ${request.uid ?? ''}`);
      return Promise.resolve({ deleted: true, seedsDeleted: 1 });
    },
  } as unknown as Provider;
  const deps: JobDeps = {
    provider,
    registry: {
      get: () => Promise.resolve(lastKnownVmid === undefined ? undefined : { name: 'foo', state: 'present', generation: 1, updatedAt: '2026-12-03T09:00:00.000Z', lastKnown: { state: 'Running', vmid: lastKnownVmid, at: '2026-12-03T09:00:00.000Z' } }),
    },
    isNameLocked: () => Promise.resolve(false),
    saveHealth: () => Promise.resolve(),
    reconcile: () => Promise.resolve({}),
    leases: { expire: () => Promise.resolve({ kind: 'gone' }), warn: () => Promise.resolve({ warned: false }) },
    addresses: NO_ADDRESS_LEASES,
    tenantHolds: NO_TENANT_HOLDS,
    pools,
    logger: silentLogger(),
  };
  return { ...w, deps, pools };
}

function ctx(): JobContext & { lastKnown: LastKnown[] } {
  const lastKnown: LastKnown[] = [];
  return { signal: new AbortController().signal, jobId: 'create-foo-1', lastKnown, setLastKnown: (_name, known) => lastKnown.push(known) };
}

const fooData = { name: 'foo', uid: 'fu1', image: 'default', cores: 1, memoryMiB: 512, diskGiB: 10, waitForAddress: true, generation: 1, sshKeys: ['ssh-ed25519 AAAA k'] };

describe("the create job's pool paths (SPEC 30)", () => {
  it("gives the claim the registry's last-known VMID of the name, so a VM renamed to it moments ago (not yet listed so) holds the name (SPEC 28)", async () => {
    const w = world('renamed', 77);
    await createJob.handler({ ...fooData, claim }, w.deps, ctx());
    expect(w.knownVmids).to.deep.equal([77]);
  });

  it("a claimed create takes the member's VM, forgets the member, counts the claim and enqueues a refill: no cold create", async () => {
    const w = world();
    const result = (await createJob.handler({ ...fooData, claim }, w.deps, ctx())) as CreateResult;
    expect(result).to.include({ origin: 'pool', vmid: 101, address: '192.0.2.10', uid: 'fu1' });
    expect(w.cold).to.have.length(0);
    expect(w.claimed).to.deep.equal([claim]);
    expect(w.store.forgotten).to.deep.equal([claim]);
    expect(w.refills).to.deep.equal(['small']);
    expect(w.metrics).to.deep.equal(['claimed small timed']);
  });

  it("a claim whose VM is gone goes the cold way and says so; the gone member's entry is forgotten, a miss is counted, the pool refilled", async () => {
    const w = world('lost');
    const result = (await createJob.handler({ ...fooData, claim }, w.deps, ctx())) as CreateResult;
    expect(result).to.include({ origin: 'cold', vmid: 200 });
    expect(w.cold.map((spec) => spec.name)).to.deep.equal(['foo']);
    expect(w.cold[0]).to.not.have.property('claim');
    expect(w.store.forgotten).to.deep.equal([claim]);
    expect(w.metrics).to.deep.equal(['missed small']);
    // The pool is a member short, as after a claim: not left so until the 30 s schedule.
    expect(w.refills).to.deep.equal(['small']);
    expect(w.steps, "a VM still of the member's name and mark (keys too long, moved off the claim's node) goes before the cold create, which holds its address now").to.deep.equal(['delete pvep-pool-small-1 mu1', 'create foo']);
  });

  it('any other failure of the claim fails the attempt (retried), with no cold create', async () => {
    const w = world('broken');
    let failed: unknown;
    await createJob.handler({ ...fooData, claim }, w.deps, ctx()).catch((err: unknown) => (failed = err));
    expect(failed).to.be.instanceOf(Error);
    expect(w.cold).to.have.length(0);
  });

  it('forgets the member as soon as the claim renamed its VM: a claim failing after (its keys) leaves no member claimed for ever', async () => {
    const w = world('keys-failed');
    await w.store.addMember(pool, 'fp1', 'mu1', new Date());
    w.store.claim('pvep-pool-small-1', 'foo fu1');
    let failed: unknown;
    await createJob.handler({ ...fooData, claim }, w.deps, ctx()).catch((err: unknown) => (failed = err));
    expect(failed).to.be.instanceOf(Error);
    expect(w.store.forgotten).to.deep.equal([claim]);
    expect(w.store.entries.has('pvep-pool-small-1')).to.equal(false);
    expect(w.cold).to.have.length(0);
  });

  it("an in-place change's later generation, which keeps the claim, claims first (the rename may not have run) and then changes the renamed VM by the ordinary create", async () => {
    const w = world();
    const result = (await createJob.handler({ ...fooData, cores: 3, generation: 2, claim: { ...claim, generation: 1 } }, w.deps, ctx())) as CreateResult;
    expect(w.claimed).to.have.length(1);
    expect(w.cold.map((spec) => [spec.name, spec.cores])).to.deep.equal([['foo', 3]]);
    expect(w.store.forgotten).to.deep.equal([{ ...claim, generation: 1 }]);
    expect(result).to.include({ origin: 'pool' });
    expect(w.metrics, 'the claim is counted by its own generation').to.deep.equal([]);
    const first = world();
    await createJob.handler({ ...fooData, claim: { ...claim, generation: 1 } }, first.deps, ctx());
    expect(first.cold, 'the claiming generation itself: no ordinary create').to.have.length(0);
  });

  it('a create with no claim is cold and says so; the provider never sees pool fields', async () => {
    const w = world();
    const result = (await createJob.handler({ ...fooData }, w.deps, ctx())) as CreateResult;
    expect(result).to.include({ origin: 'cold' });
    expect(w.claimed).to.have.length(0);
  });

  describe("a member's create", () => {
    async function member(w: World): Promise<PoolMember> {
      return w.store.addMember(pool, 'fp1', 'mu1', new Date());
    }
    const memberData = (m: PoolMember) => ({ name: m.name, uid: m.uid, image: 'default', cores: 1, memoryMiB: 512, diskGiB: 10, waitForAddress: true, generation: 1, poolMember: 'small' });

    it('ended Running with its address makes the member idle with its VM and address, claimable', async () => {
      const w = world();
      const m = await member(w);
      await createJob.handler(memberData(m), w.deps, ctx());
      expect(w.store.entries.get(m.name)).to.include({ idle: true, vmid: 200, node: 'pve1', address: '192.0.2.10' });
      expect(w.cold[0], "the provider tags the member and seeds its user's ~/.ssh").to.have.property('poolMember', 'small');
      expect(w.drained).to.have.length(0);
    });

    it('is drained when the store refuses it idle (superseded or of another shape)', async () => {
      const w = world();
      const m = await member(w);
      w.store.refuseIdle.add(m.name);
      await createJob.handler(memberData(m), w.deps, ctx());
      expect(w.drained).to.deep.equal([m.name]);
    });

    it('claimed between its markIdle and its end, a rerun leaves it to the claimer: no drain, and once forgotten (renamed) no clone either', async () => {
      const w = world();
      const m = await member(w);
      await createJob.handler(memberData(m), w.deps, ctx());
      w.store.claim(m.name, 'foo u-foo');
      const rerun = await createJob.handler(memberData(m), w.deps, ctx());
      expect(rerun).to.include({ superseded: true });
      expect(w.drained, 'claimed: not drained').to.deep.equal([]);
      expect(w.cold, 'the first run only').to.have.length(1);
      await w.store.forgetClaimed({ ...claim, member: m.name, memberUid: m.uid });
      await createJob.handler(memberData(m), w.deps, ctx());
      expect(w.drained, 'forgotten: not drained').to.deep.equal([]);
      expect(w.cold, 'forgotten: no new clone').to.have.length(1);
    });

    it('claimed while its create ran (after the check), it is left to the claimer, not drained', async () => {
      const w = world();
      const m = await member(w);
      const deps: JobDeps = {
        ...w.deps,
        provider: {
          create: (spec: CreateSpec) => {
            w.store.claim(m.name, 'foo u-foo');
            return Promise.resolve(resultOf(spec, 202));
          },
        } as unknown as Provider,
      };
      await createJob.handler(memberData(m), deps, ctx());
      expect(w.drained).to.deep.equal([]);
      expect(w.store.entries.get(m.name)).to.include({ idle: false, claimedBy: 'foo u-foo' });
    });

    it('is idle when it ended Running with no address (its claim reads the address), not drained', async () => {
      const w = world();
      const m = await member(w);
      const { address: _address, ...noAddress } = resultOf(m, 201);
      const deps: JobDeps = { ...w.deps, provider: { create: () => Promise.resolve(noAddress) } as unknown as Provider };
      await createJob.handler(memberData(m), deps, ctx());
      expect(w.drained).to.deep.equal([]);
      expect(w.store.entries.get(m.name)).to.include({ idle: true, vmid: 201 }).and.not.have.property('address');
    });

    it('is drained when its pool is no longer configured', async () => {
      const w = world();
      const m = await w.store.addMember({ ...pool, name: 'gone' }, 'fp1', 'mu1', new Date());
      await createJob.handler({ ...memberData(m), poolMember: 'gone' }, w.deps, ctx());
      expect(w.drained).to.deep.equal([m.name]);
    });

    it('that failed for good is drained: its name and entry go', async () => {
      const w = world();
      const m = await member(w);
      await createJob.afterPermanentFailure?.(memberData(m), w.deps, ctx());
      expect(w.drained).to.deep.equal([m.name]);
      expect(w.store.entries.has(m.name)).to.equal(false);
    });
  });
});
