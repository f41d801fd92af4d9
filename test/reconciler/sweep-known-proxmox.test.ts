// SPEC 26, SPEC 5: the calls a steady sweep makes, counted on the FakeProxmox
// seam fake, over createProvider and the job layer's registry on the real
// Redis: the last-known VMID and node a job wrote into a name's record let
// the sweep take that VM from the listing without reading its config.
import { expect } from 'chai';
import { NODE, proxmoxWorld, type ProxmoxWorld } from './proxmox-world.js';

const COUNT = 20;

/** COUNT VMs of ours, present, each with the last-known state its create wrote. */
async function steady(w: ProxmoxWorld): Promise<void> {
  for (let i = 0; i < COUNT; i += 1) {
    const name = `vm-${i}`;
    await w.present(name, `uid-${i}`);
    const vm = w.ourVm(name, `uid-${i}`, { vmid: 5000 + i });
    w.seed(name);
    await w.registry.recordLastKnown(name, { state: 'Running', vmid: vm.vmid, node: vm.node, at: new Date().toISOString() });
  }
}

describe('reconcile sweep over the provider: Proxmox calls of a steady sweep (SPEC 26, real Redis)', () => {
  let w: ProxmoxWorld;

  afterEach(async () => {
    await w.close();
  });

  it('makes one /cluster/resources call, no config read, and one seed content and one storage listing per node', async () => {
    w = proxmoxWorld();
    await steady(w);
    w.pve.calls.length = 0;

    const report = await w.report();

    expect(w.pve.count('clusterResources')).to.equal(1);
    expect(w.pve.count('getConfig')).to.equal(0);
    // The seed listing (SPEC 5 step 1): one node configured here.
    expect(w.pve.methods().sort()).to.deep.equal(['clusterResources', 'storageContent', 'storages']);
    expect(report.counts).to.include({ listed: COUNT, ours: COUNT, orphansDeleted: 0, unknown: 0, seedsDeleted: 0, missingReenqueued: 0, errors: 0 });
    expect(await w.added()).to.deep.equal([]);
  });

  it('reads one config for a VM at another VMID than its last-known one, for an untagged named VM and for a tagged VM of an unknown name', async () => {
    w = proxmoxWorld();
    await steady(w);
    // vm-3's last-known VMID is 5003; its VM now answers at 6003 (made again by hand, say).
    w.pve.vms.delete(5003);
    w.ourVm('vm-3', 'uid-3', { vmid: 6003 });
    // vm-4's name on a VM without our tag (a clone just before a crash, SPEC 5, 11).
    w.ourVm('vm-4', 'uid-crash', { vmid: 6004, tagged: false });
    // A tagged VM under a name the registry never recorded.
    w.ourVm('stray', 'uid-stray', { vmid: 6005 });
    w.pve.calls.length = 0;

    const report = await w.report();

    expect(w.pve.count('clusterResources')).to.equal(1);
    expect(w.pve.callsTo('getConfig').map((c) => c.args).sort()).to.deep.equal([
      [NODE, 6003],
      [NODE, 6004],
      [NODE, 6005],
    ]);
    // What was read decides as before: vm-3's VM is still its uid's, the untagged clone of another uid goes, the stranger stays.
    expect(await w.added()).to.deep.equal([['delete', 'vm-4', 'uid-crash']]);
    expect(report.orphans.unknown.map((u) => u.vmid)).to.deep.equal([6005]);
  });
});
