// The sweep's inventory (SPEC 5) on the real provider over FakeProxmox:
// the tagged VMs and every registry name from one resources call (SPEC 21
// sweep bar), not one per name, each of which would return the whole
// cluster, and each VM's config read once.
import { expect } from 'chai';
import { takeInventory } from '../../src/reconciler/inventory.js';
import type { DesiredEntry } from '../../src/reconciler/ports.js';
import { addOurVm, harness } from './harness.js';

const entry = (name: string): DesiredEntry => ({ name, state: 'present', uid: `uid-${name}`, generation: 1, updatedAt: '2026-11-30T09:00:00.000Z' });

describe('sweep inventory through the provider (SPEC 5, SPEC 21)', () => {
  it('lists the tagged VMs and looks every registry name up with one resources call, reading each config once', async () => {
    const h = harness();
    for (let i = 0; i < 1000; i++) h.pve.addVm({ vmid: 200000 + i, config: { name: `foreign-${i}`, tags: 'debian' } });
    for (let i = 0; i < 10; i++) addOurVm(h.pve, `ours-${i}`, `uid-ours-${i}`, { vmid: 100000 + i });
    // Cloned just before a crash: our name and mark, no tag yet (SPEC 11).
    addOurVm(h.pve, 'half-made', 'uid-half-made', { vmid: 100100, config: { tags: 'debian' } });
    const names = ['ours-1', 'half-made', 'gone'];
    const inventory = await takeInventory(h.provider, names.map(entry), new Map(names.map((n) => [n, 1])), h.ctx);
    expect(h.pve.count('clusterResources')).to.equal(1);
    expect(inventory.vms.map((v) => v.vmid)).to.include(100100);
    expect(inventory.vms.find((v) => v.vmid === 100100)).to.include({ ours: true, tagged: false, uid: 'uid-half-made' });
    // Config reads: the ten tagged VMs of ours and the untagged match, once each, no foreign VM.
    expect(h.pve.callsTo('getConfig').map((c) => c.args[1] as number).sort()).to.deep.equal([...Array.from({ length: 10 }, (_, i) => 100000 + i), 100100]);
  });
});
