// SPEC 28 (issue 27, audit 3.4): the check and delete jobs hand the
// provider the VMID the registry last saw the name's VM at (lastKnown), so
// a VM of ours off its uid's chain whose listing entry shows a destroyed
// VM's name is read there instead of being taken for gone.
import { expect } from 'chai';
import { checkJob } from '../../jobs/check.js';
import { deleteJob } from '../../jobs/delete.js';
import type { JobContext, JobDeps } from '../../jobs/types.js';
import type { DesiredRecord } from '../../src/desired-state.js';
import { silentLogger } from '../../src/log.js';
import { vmidForUid } from '../../src/provider/vmid.js';
import { FakeProxmox } from '../fakes/fake-proxmox.js';
import { addOurVm, harness, RANGE, type Harness } from '../provider/harness.js';
import { NO_ADDRESS_LEASES } from '../support/address-leases.js';
import { NO_TENANT_HOLDS } from '../support/tenant-holds.js';

const NAME = 'proxy-a';
const UID = '3f1c2a9e-6b7d-4e58-9a10-2c4d5e6f7a80';
/** One past a gap in the uid's chain (the VM that pushed it there is gone). */
const OFF_CHAIN = vmidForUid(UID, RANGE) + 1;

/** Our VM off the chain, listed under the name of the VM destroyed at its VMID before it. */
function staleOffChain(): Harness {
  const h = harness({ pve: new FakeProxmox({ statdEvery: Number.MAX_SAFE_INTEGER }) });
  h.pve.addVm({ vmid: OFF_CHAIN, node: 'pv1-1', config: { name: 'someone-old' } });
  h.pve.statdCycle();
  addOurVm(h.pve, NAME, UID, { vmid: OFF_CHAIN });
  return h;
}

function deps(h: Harness, record: DesiredRecord): JobDeps {
  return {
    provider: h.provider,
    registry: { get: (name) => Promise.resolve(name === NAME ? record : undefined) },
    isNameLocked: () => Promise.resolve(false),
    saveHealth: () => Promise.resolve(),
    reconcile: () => Promise.resolve({}),
    leases: { expire: () => Promise.resolve({ kind: 'gone' }), warn: () => Promise.resolve({ warned: false }) },
    addresses: NO_ADDRESS_LEASES,
    tenantHolds: NO_TENANT_HOLDS,
    logger: silentLogger(),
  };
}

function jobCtx(h: Harness): JobContext {
  return { ...h.ctx, jobId: 'job-1', setLastKnown: () => undefined };
}

function record(lastKnownVmid?: number): DesiredRecord {
  return {
    name: NAME,
    state: 'present',
    uid: UID,
    generation: 1,
    updatedAt: '2026-09-18T14:00:00.000Z',
    ...(lastKnownVmid === undefined ? {} : { lastKnown: { state: 'Running', vmid: lastKnownVmid, node: 'pv1-1', at: '2026-09-18T14:01:00.000Z' } }),
  };
}

describe("check and delete jobs read the registry's last-known VMID (SPEC 28)", () => {
  it('check answers what the VM is, not NotFound', async () => {
    const h = staleOffChain();
    expect(await checkJob.handler({ name: NAME }, deps(h, record(OFF_CHAIN)), jobCtx(h))).to.include({ state: 'Stopped', vmid: OFF_CHAIN });
    const blind = staleOffChain();
    expect(await checkJob.handler({ name: NAME }, deps(blind, record()), jobCtx(blind)), 'without lastKnown').to.include({ state: 'NotFound' });
  });

  it('delete destroys the VM, not only its seeds', async () => {
    const h = staleOffChain();
    expect(await deleteJob.handler({ name: NAME, uid: UID, generation: 2 }, deps(h, { ...record(OFF_CHAIN), state: 'absent', generation: 2 }), jobCtx(h))).to.include({
      deleted: true,
      vmid: OFF_CHAIN,
    });
    expect(h.pve.vm(OFF_CHAIN)).to.equal(undefined);
  });
});
