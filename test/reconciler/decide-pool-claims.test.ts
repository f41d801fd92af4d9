// SPEC 30: the sweep and claimed warm-pool members. A member is a present
// name, so kept; a claimed one whose claimer is no longer present with the
// claiming uid, its VM still under the member's name and uid, is an
// orphan (`abandoned claim`) whose name goes too; one whose claimer is
// there is kept, and a claimed member is never missing (its VM is being
// renamed to the claimer).
import { expect } from 'chai';
import { decide } from '../../src/reconciler/decide.js';
import type { Inventory } from '../../src/reconciler/inventory.js';
import type { DesiredEntry } from '../../src/reconciler/ports.js';
import type { ListedVm } from '../../src/provider/types.js';
import { sweep } from '../../src/reconciler/sweep.js';
import { OUR_TAG, ProviderDouble, makeWorld, mark } from './support.js';

const NOW = new Date('2026-12-01T12:00:00Z');
const OLD = '2026-12-01T10:00:00.000Z';
const MEMBER = 'pvep-pool-small-1';

function vm(name: string, uid: string): ListedVm {
  return { vmid: 100100, node: 'pve1', ours: true, tagged: true, createdAt: OLD, name, uid };
}

function entry(name: string, uid: string, init: Partial<DesiredEntry> = {}): DesiredEntry {
  return { name, state: 'present', generation: 3, updatedAt: OLD, uid, ...init };
}

function inventory(vms: ListedVm[], entries: DesiredEntry[]): Inventory {
  return { vms, seeds: [], seedsListed: true, unrecordedSeeds: [], entries: new Map(entries.map((e) => [e.name, e])), generations: new Map(entries.map((e): [string, number] => [e.name, e.generation])) };
}

const claimed = entry(MEMBER, 'mu1', { claimedBy: 'foo fu1' });

describe('the sweep and claimed pool members (SPEC 30)', () => {
  it('keeps an idle (unclaimed) member and a claimed one whose claimer is present with the claiming uid, at any generation (an in-place change keeps the claim)', () => {
    expect(decide(inventory([vm(MEMBER, 'mu1')], [entry(MEMBER, 'mu1')]), NOW, 900).orphanVms).to.deep.equal([]);
    expect(decide(inventory([vm(MEMBER, 'mu1')], [claimed, entry('foo', 'fu1', { generation: 7 })]), NOW, 900).orphanVms).to.deep.equal([]);
    expect(decide(inventory([vm(MEMBER, 'mu1')], [claimed, entry('foo', 'fu1', { generation: 8 })]), NOW, 900).orphanVms, 'a later generation of the uid, its job mid-rename').to.deep.equal([]);
  });

  it('deletes the VM of a member whose claimer was deleted, or created again with another uid, before its create ran', () => {
    for (const claimer of [undefined, entry('foo', 'fu2', { generation: 8 }), entry('foo', 'fu1', { generation: 8, state: 'absent' })]) {
      const p = decide(inventory([vm(MEMBER, 'mu1')], [claimed, ...(claimer ? [claimer] : [])]), NOW, 900);
      expect(p.orphanVms, JSON.stringify(claimer)).to.deep.equal([{ ref: { name: MEMBER, uid: 'mu1', vmid: 100100, node: 'pve1', reason: 'abandoned claim', generation: 3 }, young: false }]);
    }
  });

  it('never calls a claimed member missing: its VM is being renamed to the claimer', () => {
    const p = decide(inventory([vm('foo', 'fu1')], [claimed, entry('foo', 'fu1', { generation: 7 })]), NOW, 900);
    expect(p.missing).to.deep.equal([]);
    expect(p.orphanVms).to.deep.equal([]);
  });
});

describe('the sweep acting on an abandoned claim (SPEC 30)', () => {
  it("enqueues the member's delete with its name going too, and keeps the member whose claimer is there", async () => {
    const provider = new ProviderDouble()
      .addVm({ vmid: 301, node: 'pve1', name: 'pvep-pool-small-1', tags: [OUR_TAG], description: mark('mu1') })
      .addVm({ vmid: 302, node: 'pve1', name: 'pvep-pool-small-2', tags: [OUR_TAG], description: mark('mu2') })
      .addVm({ vmid: 303, node: 'pve1', name: 'bar', tags: [OUR_TAG], description: mark('bu1') });
    const world = makeWorld(provider);
    world.registry.present('pvep-pool-small-1', 'mu1', undefined, 3).present('pvep-pool-small-2', 'mu2', undefined, 4).present('bar', 'bu1', undefined, 9);
    Object.assign(world.registry.entries.get('pvep-pool-small-1') ?? {}, { claimedBy: 'foo fu1' });
    Object.assign(world.registry.entries.get('pvep-pool-small-2') ?? {}, { claimedBy: 'bar bu1' });

    const report = await sweep(world.deps, { dryRun: false });

    expect(world.enqueuer.deletes).to.deep.equal([{ name: 'pvep-pool-small-1', uid: 'mu1', reason: 'reconciler: orphan (abandoned claim)', seenGeneration: 3, nameGoes: true }]);
    expect(report.orphans.deleted.map((o) => [o.vmid, o.reason])).to.deep.equal([[301, 'abandoned claim']]);
  });
});
