// SPEC 29 (issue 31): "The sweep frees leases with no VM and no present
// name, and reports an address seen on a VM of ours that no lease holds."
// The sweep as the worker runs it (createReconcileRunner) over the fake
// Proxmox, with the registry and the pools' leases on the real Redis; the
// leases are written in the pools' shared layout as the door leaves them.
import { expect } from 'chai';
import { keys } from '../../src/redis-keys.js';
import { planAddresses } from '../../src/reconciler/decide-addresses.js';
import type { Inventory } from '../../src/reconciler/inventory.js';
import { leaseState, putLease, testPool } from '../support/address-leases.js';
import { NODE, proxmoxWorld, SWEEP_AT, type ProxmoxWorld } from './proxmox-world.js';

const POOL = testPool({ reuseCooldownSeconds: 300 });

function held(name: string, uid: string, address: string): { name: string; uid: string; pool: string; address: string } {
  return { name, uid, pool: POOL.name, address };
}

/** What the name's last job saw of its VM, as a create with an address leaves it. */
async function seenAt(w: ProxmoxWorld, name: string, vmid: number, address: string): Promise<void> {
  await w.registry.recordLastKnown(name, { state: 'Running', vmid, node: NODE, address, at: SWEEP_AT.toISOString() });
}

describe('the sweep and the address pools (SPEC 29)', function () {
  this.timeout(20_000);
  let w: ProxmoxWorld;
  afterEach(() => w.close());

  it('frees a lease with no VM and no present name, and keeps the leases of present names and of VMs still there', async () => {
    w = proxmoxWorld({ networks: [POOL] });
    const gone = held('gone-1', 'u1', '127.77.0.11');
    const stray = held('stray-1', 'u9', '127.77.0.12');
    const web = held('web-1', 'u2', '127.77.0.13');
    const db = held('db-1', 'u3', '127.77.0.14');
    const old = held('old-1', 'u4', '127.77.0.15');
    await w.tombstone('gone-1', 'u1');
    await w.present('web-1', 'u2');
    w.ourVm('web-1', 'u2');
    // Present, its create not run yet: no VM.
    await w.present('db-1', 'u3');
    // Deleted, its VM still there (the sweep enqueues its delete; that job ends the lease).
    await w.tombstone('old-1', 'u4');
    w.ourVm('old-1', 'u4');
    for (const lease of [gone, stray, web, db, old]) await putLease(w.redis, w.prefix, lease);

    const report = await w.report();

    expect(report.addresses.freed.map((l) => [l.name, l.uid, l.address]).sort()).to.deep.equal([
      ['gone-1', 'u1', '127.77.0.11'],
      ['stray-1', 'u9', '127.77.0.12'],
    ]);
    for (const lease of [gone, stray]) {
      const state = await leaseState(w.redis, w.prefix, lease);
      expect(state, lease.name).to.include({ lease: null, holder: null });
      expect(state.coolingUntil, `${lease.name} rests`).to.be.greaterThan(Date.now() + 290_000);
    }
    for (const lease of [web, db, old]) expect((await leaseState(w.redis, w.prefix, lease)).holder, lease.name).to.equal(`${lease.name} ${lease.uid}`);
    expect(report.counts).to.include({ addressesFreed: 2, addressesUnleased: 0 });
    expect(w.findings.filter((kind) => kind.startsWith('address_'))).to.deep.equal(['address_lease_freed', 'address_lease_freed']);
    expect(w.lines.at(-1)).to.contain('address leases freed 2 (pending 0), unleased addresses seen 0');
  });

  it("leaves a lease to the name's running or pending job, and a dry run frees nothing", async () => {
    w = proxmoxWorld({ networks: [POOL] });
    const busy = held('busy-1', 'u1', '127.77.0.21');
    const gone = held('gone-2', 'u2', '127.77.0.22');
    await w.tombstone('busy-1', 'u1');
    await w.tombstone('gone-2', 'u2');
    await putLease(w.redis, w.prefix, busy);
    await putLease(w.redis, w.prefix, gone);
    await w.locks.tryAcquire('busy-1', 60_000);

    const dry = await w.report(true);
    expect(dry.addresses.freed.map((l) => l.name)).to.deep.equal(['gone-2']);
    expect(dry.addresses.pending.map((l) => l.name)).to.deep.equal(['busy-1']);
    expect((await leaseState(w.redis, w.prefix, gone)).holder, 'a dry run').to.equal('gone-2 u2');

    await w.report();
    expect((await leaseState(w.redis, w.prefix, busy)).holder).to.equal('busy-1 u1');
    expect((await leaseState(w.redis, w.prefix, gone)).holder).to.equal(null);
  });

  it('keeps a lease whose name was created again with its uid after the sweep read the registry', async () => {
    w = proxmoxWorld({ networks: [POOL] });
    const again = held('again-1', 'u1', '127.77.0.31');
    await w.tombstone('again-1', 'u1');
    await putLease(w.redis, w.prefix, again);
    // The sweep lists Proxmox after reading the registry: the create lands in between.
    const list = w.h.provider.listTaggedOrNamed.bind(w.h.provider);
    w.h.provider.listTaggedOrNamed = async (...args) => {
      await w.present('again-1', 'u1');
      return list(...args);
    };
    const report = await w.report();
    expect(report.addresses.freed).to.deep.equal([]);
    expect((await leaseState(w.redis, w.prefix, again)).holder).to.equal('again-1 u1');
  });

  it('reports an address of a VM of ours inside a pool that no lease holds: one warning naming the VM, node and address, and the counter', async () => {
    w = proxmoxWorld({ networks: [POOL] });
    await w.present('app-1', 'u1');
    const unleased = w.ourVm('app-1', 'u1');
    await seenAt(w, 'app-1', unleased.vmid, '127.77.0.99');
    await w.present('app-2', 'u2');
    const leased = w.ourVm('app-2', 'u2');
    await seenAt(w, 'app-2', leased.vmid, '127.77.0.42');
    await putLease(w.redis, w.prefix, held('app-2', 'u2', '127.77.0.42'));
    // Outside every pool (a DHCP network): nothing to say.
    await w.present('app-3', 'u3');
    const dhcp = w.ourVm('app-3', 'u3');
    await seenAt(w, 'app-3', dhcp.vmid, '192.0.2.7');
    // Seen by its last job at another VMID: not this VM's address.
    await w.present('app-4', 'u4');
    const moved = w.ourVm('app-4', 'u4');
    await seenAt(w, 'app-4', moved.vmid + 1, '127.77.0.98');

    const report = await w.report();

    expect(report.addresses.unleased).to.deep.equal([{ name: 'app-1', uid: 'u1', vmid: unleased.vmid, node: NODE, address: '127.77.0.99', pool: 'lab' }]);
    expect(w.unleasedSeen).to.deep.equal(['lab']);
    const warned = w.warnings.filter((line) => line.address !== undefined);
    expect(warned).to.have.length(1);
    expect(warned[0]).to.include({ level: 40, vm: 'app-1', vmid: unleased.vmid, node: NODE, address: '127.77.0.99', pool: 'lab' });
    expect(String(warned[0]?.msg)).to.contain(`address 127.77.0.99 of VM ${unleased.vmid} (app-1) on ${NODE} is in pool lab, but no lease holds it`);
    // Reported, never changed: no lease is made for it.
    expect(await w.redis.hlen(keys.addressLeases(w.prefix))).to.equal(1);
  });
});

describe("the sweep's address plan (SPEC 29)", () => {
  const inventory = (vms: Inventory['vms']): Inventory => ({
    vms,
    seeds: [],
    seedsListed: false,
    unrecordedSeeds: [],
    entries: new Map([['app-1', { name: 'app-1', state: 'present', uid: 'u1', generation: 1, updatedAt: '', lastKnown: { vmid: 101, node: NODE, address: '127.77.0.5', at: '' } }]]),
    generations: new Map([['app-1', 1]]),
  });
  const poolOf = (address: string): string | undefined => (address.startsWith('127.77.') ? 'lab' : undefined);

  it('asks nothing more of a VM whose address its lease holds, as read with the leases', () => {
    const plan = planAddresses(inventory([{ vmid: 101, node: NODE, name: 'app-1', uid: 'u1', ours: true, tagged: true }]), [held('app-1', 'u1', '127.77.0.5')], poolOf);
    expect(plan).to.deep.equal({ orphanLeases: [], unleased: [] });
  });

  it('frees no lease while a VM whose name is not known yet is listed: it may be any name\'s', () => {
    const plan = planAddresses(inventory([{ vmid: 102, node: NODE, ours: 'unknown', tagged: false }]), [held('gone-1', 'u1', '127.77.0.6')], poolOf);
    expect(plan.orphanLeases).to.deep.equal([]);
    expect(planAddresses(inventory([]), [held('gone-1', 'u1', '127.77.0.6')], poolOf).orphanLeases).to.have.length(1);
  });
});
