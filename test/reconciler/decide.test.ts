// SPEC 5: the sweep's decision (src/reconciler/decide.ts) as a pure
// function, rule by rule: what is an orphan, what is left alone and why,
// which seeds go, which present names are missing. The safety rules each
// have a case where breaking them would delete or re-create something
// wanted (issue 19).
import { expect } from 'chai';
import { decide } from '../../src/reconciler/decide.js';
import type { Inventory } from '../../src/reconciler/inventory.js';
import type { DesiredEntry } from '../../src/reconciler/ports.js';
import type { ListedVm, SeedIso } from '../../src/provider/types.js';

const NOW = new Date('2026-12-01T12:00:00Z');
const GRACE = 900;
const OLD = '2026-12-01T10:00:00.000Z';
/** Exactly the grace period old: no longer young. */
const AT_GRACE = new Date(NOW.getTime() - GRACE * 1000).toISOString();
/** One second short of the grace period. */
const JUST_YOUNG = new Date(NOW.getTime() - GRACE * 1000 + 1000).toISOString();

function vm(name: string | undefined, uid: string | undefined, init: Partial<ListedVm> = {}): ListedVm {
  return { vmid: 100100, node: 'pve1', ours: true, tagged: true, createdAt: OLD, ...(name === undefined ? {} : { name }), ...(uid === undefined ? {} : { uid }), ...init };
}

function present(name: string, uid: string | undefined, init: Partial<DesiredEntry> = {}): DesiredEntry {
  return { name, state: 'present', generation: 3, updatedAt: OLD, ...(uid === undefined ? {} : { uid }), ...init };
}

function absent(name: string, init: Partial<DesiredEntry> = {}): DesiredEntry {
  return { name, state: 'absent', generation: 4, updatedAt: OLD, ...init };
}

function seed(name: string, init: Partial<SeedIso> = {}): SeedIso {
  return { node: 'pve1', storage: 'seeds', volid: `seeds:iso/${name}-seed.iso`, name, ctime: Date.parse(OLD) / 1000, shared: false, ...init };
}

function inventory(parts: { vms?: ListedVm[]; seeds?: SeedIso[]; entries?: DesiredEntry[]; generations?: [string, number][] }): Inventory {
  const entries = parts.entries ?? [];
  return {
    vms: parts.vms ?? [],
    seeds: parts.seeds ?? [],
    seedsListed: true,
    unrecordedSeeds: [],
    entries: new Map(entries.map((e) => [e.name, e])),
    generations: new Map([...entries.map((e): [string, number] => [e.name, e.generation]), ...(parts.generations ?? [])]),
  };
}

function plan(parts: Parameters<typeof inventory>[0]): ReturnType<typeof decide> {
  return decide(inventory(parts), NOW, GRACE);
}

describe('the sweep decides (SPEC 5)', () => {
  it('counts listed and ours, and an empty world decides nothing', () => {
    expect(plan({})).to.deep.equal({ listed: 0, ours: 0, orphanVms: [], unknownVms: [], orphanSeeds: [], strangerSeeds: [], missing: [], failedCreates: [], expiredLeases: [] });
    const p = plan({ vms: [vm('a', 'u1'), vm('b', undefined, { ours: false }), vm('c', 'u3', { ours: 'unknown' })], entries: [present('a', 'u1')] });
    expect(p.listed).to.equal(3);
    expect(p.ours).to.equal(1);
  });

  it('a VM of ours under a tombstoned name is an orphan, with its reason and generation', () => {
    const p = plan({ vms: [vm('a', 'u1', { vmid: 100200, node: 'pve2' })], entries: [absent('a')] });
    expect(p.orphanVms).to.deep.equal([{ ref: { name: 'a', uid: 'u1', vmid: 100200, node: 'pve2', reason: 'tombstoned name', generation: 4 }, young: false }]);
    expect(p.unknownVms).to.deep.equal([]);
  });

  it('a VM under a present name with another uid is an orphan; with the same uid it is claimed', () => {
    const other = plan({ vms: [vm('a', 'u-old')], entries: [present('a', 'u-new')] });
    expect(other.orphanVms.map((c) => c.ref.reason)).to.deep.equal(['present with another uid']);
    const same = plan({ vms: [vm('a', 'u1')], entries: [present('a', 'u1')] });
    expect(same.orphanVms).to.deep.equal([]);
    expect(same.unknownVms).to.deep.equal([]);
    expect(same.missing).to.deep.equal([]);
  });

  it('a present entry without a uid claims every VM of its name: no orphan, nothing missing', () => {
    const p = plan({ vms: [vm('a', 'u1'), vm('a', 'u2', { vmid: 100101 })], entries: [present('a', undefined)] });
    expect(p.orphanVms).to.deep.equal([]);
    expect(p.missing).to.deep.equal([]);
  });

  it('an unknown name that the registry recorded once (a generation, no entry) is an orphan at that generation', () => {
    const p = plan({ vms: [vm('gone', 'u1')], generations: [['gone', 7]] });
    expect(p.orphanVms).to.deep.equal([{ ref: { name: 'gone', uid: 'u1', vmid: 100100, node: 'pve1', reason: 'unknown name', generation: 7 }, young: false }]);
  });

  it('a name the registry never recorded is left alone, saying why', () => {
    const p = plan({ vms: [vm('stranger', 'u1')] });
    expect(p.orphanVms).to.deep.equal([]);
    expect(p.unknownVms).to.deep.equal([
      { vmid: 100100, node: 'pve1', name: 'stranger', why: 'its name was never recorded by this registry (another installation, or lost registry data)' },
    ]);
  });

  it('a VM whose config could not be read is unknown, never an orphan', () => {
    const p = plan({ vms: [vm('a', 'u1', { ours: 'unknown' })], entries: [absent('a')] });
    expect(p.orphanVms).to.deep.equal([]);
    expect(p.unknownVms).to.deep.equal([{ vmid: 100100, node: 'pve1', name: 'a', why: 'its config could not be read' }]);
  });

  it('a VM of ours with no uid, or no name, is unknown, never an orphan', () => {
    const noUid = plan({ vms: [vm('a', undefined)], entries: [absent('a')] });
    expect(noUid.orphanVms).to.deep.equal([]);
    expect(noUid.unknownVms).to.deep.equal([{ vmid: 100100, node: 'pve1', name: 'a', why: 'its mark has no uid or it has no name' }]);
    const noName = plan({ vms: [vm(undefined, 'u1')], generations: [['a', 1]] });
    expect(noName.unknownVms).to.deep.equal([{ vmid: 100100, node: 'pve1', why: 'its mark has no uid or it has no name' }]);
    expect(noName.ours).to.equal(1);
  });

  it('a VM whose config could not be read is not decided on: not an orphan, and its name is not missing', () => {
    const unread = (name: string): ListedVm => ({ ...vm(name, undefined), ours: 'unknown' });
    const p = plan({ vms: [unread('a')], entries: [absent('a')] });
    expect(p.orphanVms).to.deep.equal([]);
    expect(p.unknownVms).to.deep.equal([{ vmid: 100100, node: 'pve1', name: 'a', why: 'its config could not be read' }]);
    const missing = plan({ vms: [unread('b')], entries: [present('b', 'u2')] });
    expect(missing.missing).to.deep.equal([]);
  });

  it('no seed is a candidate while a nameless VM whose config could not be read is listed (SPEC 5, 23)', () => {
    const nameless: ListedVm = { ...vm(undefined, undefined), ours: 'unknown' };
    const p = plan({ vms: [nameless], seeds: [seed('a')], entries: [absent('a')] });
    expect(p.orphanSeeds).to.deep.equal([]);
    const seen = plan({ seeds: [seed('a')], entries: [absent('a')] });
    expect(seen.orphanSeeds.map((c) => c.ref.name)).to.deep.equal(['a']);
  });

  it('a VM whose mark has no or a bad written-at-create is unknown: its age is unknown', () => {
    for (const createdAt of [undefined, 'not a date']) {
      const p = plan({ vms: [vm('a', 'u1', createdAt === undefined ? { createdAt: undefined } : { createdAt })], entries: [absent('a')] });
      expect(p.orphanVms, String(createdAt)).to.deep.equal([]);
      expect(p.unknownVms).to.deep.equal([{ vmid: 100100, node: 'pve1', name: 'a', why: 'its mark has no written-at-create, so its age is unknown' }]);
    }
  });

  it('an orphan younger than the grace period is young; one exactly the grace period old is not', () => {
    const young = plan({ vms: [vm('a', 'u1', { createdAt: JUST_YOUNG })], entries: [absent('a')] });
    expect(young.orphanVms.map((c) => c.young)).to.deep.equal([true]);
    const grown = plan({ vms: [vm('a', 'u1', { createdAt: AT_GRACE })], entries: [absent('a')] });
    expect(grown.orphanVms.map((c) => c.young)).to.deep.equal([false]);
  });

  it('a seed with no VM under a tombstoned name is an orphan; young by its ctime; none ctime is young', () => {
    const p = plan({ seeds: [seed('a', { node: 'pve2', volid: 'seeds:iso/a-seed.iso' })], entries: [absent('a')] });
    expect(p.orphanSeeds).to.deep.equal([{ ref: { name: 'a', node: 'pve2', volid: 'seeds:iso/a-seed.iso' }, seed: seed('a', { node: 'pve2', volid: 'seeds:iso/a-seed.iso' }), young: false }]);
    const young = plan({ seeds: [seed('a', { ctime: Date.parse(JUST_YOUNG) / 1000 })], entries: [absent('a')] });
    expect(young.orphanSeeds.map((s) => s.young)).to.deep.equal([true]);
    const noTime = plan({ seeds: [seed('a', { ctime: undefined })], entries: [absent('a')] });
    expect(noTime.orphanSeeds.map((s) => s.young)).to.deep.equal([true]);
  });

  it("a seed whose name is present is kept (the create uploads it again); one the registry never knew is a stranger's", () => {
    expect(plan({ seeds: [seed('a')], entries: [present('a', 'u1')] }).orphanSeeds).to.deep.equal([]);
    const stranger = plan({ seeds: [seed('x', { node: 'pve2' })] });
    expect(stranger.orphanSeeds).to.deep.equal([]);
    expect(stranger.strangerSeeds).to.deep.equal([{ name: 'x', node: 'pve2', volid: 'seeds:iso/x-seed.iso' }]);
  });

  it('a seed is kept while any VM of its name is seen on its node, ours or not', () => {
    for (const ours of [true, false, 'unknown'] as const) {
      const p = plan({ vms: [vm('a', 'u1', { ours })], seeds: [seed('a')], entries: [present('a', 'u1')] });
      expect(p.orphanSeeds, String(ours)).to.deep.equal([]);
    }
  });

  it("a seed on a node's own storage is left behind when the present entry's VM is on another node", () => {
    const p = plan({ vms: [vm('a', 'u1', { node: 'pve2' })], seeds: [seed('a', { node: 'pve1' })], entries: [present('a', 'u1')] });
    expect(p.orphanSeeds).to.deep.equal([
      { ref: { name: 'a', node: 'pve1', volid: 'seeds:iso/a-seed.iso', vmNode: 'pve2' }, seed: seed('a', { node: 'pve1' }), young: false, leftBehind: { uid: 'u1', vmNode: 'pve2' } },
    ]);
  });

  it('it is not left behind on shared storage, storage not known to be local, a tombstone, an entry without uid, or when the VM elsewhere is not the entry\'s', () => {
    const elsewhere = [vm('a', 'u1', { node: 'pve2' })];
    const cases: [string, Parameters<typeof inventory>[0]][] = [
      ['shared', { vms: elsewhere, seeds: [seed('a', { shared: true })], entries: [present('a', 'u1')] }],
      ['not said', { vms: elsewhere, seeds: [seed('a', { shared: undefined })], entries: [present('a', 'u1')] }],
      ['tombstone', { vms: elsewhere, seeds: [seed('a')], entries: [absent('a')] }],
      ['no uid', { vms: elsewhere, seeds: [seed('a')], entries: [present('a', undefined)] }],
      ['other uid', { vms: [vm('a', 'u-other', { node: 'pve2' })], seeds: [seed('a')], entries: [present('a', 'u1')] }],
      ['unknown VM', { vms: [vm('a', 'u1', { node: 'pve2', ours: 'unknown' })], seeds: [seed('a')], entries: [present('a', 'u1')] }],
      ['a VM on its node too', { vms: [...elsewhere, vm('a', 'u9', { node: 'pve1', vmid: 100101 })], seeds: [seed('a')], entries: [present('a', 'u1')] }],
    ];
    for (const [label, parts] of cases) expect(plan(parts).orphanSeeds, label).to.deep.equal([]);
  });

  it('a present name with no VM is missing, with its uid and generation; young by its updatedAt', () => {
    const p = plan({ entries: [present('a', 'u1', { generation: 5 }), present('b', undefined, { updatedAt: JUST_YOUNG })] });
    expect(p.missing).to.deep.equal([
      { ref: { name: 'a', uid: 'u1', generation: 5 }, young: false },
      { ref: { name: 'b', generation: 3 }, young: true },
    ]);
    expect(plan({ entries: [absent('a')] }).missing).to.deep.equal([]);
  });

  it('a present name is not missing while a VM of its name might be its own (unknown, no uid) or is', () => {
    for (const listed of [vm('a', 'u1'), vm('a', 'u2', { ours: 'unknown' }), vm('a', undefined)]) {
      expect(plan({ vms: [listed], entries: [present('a', 'u1')] }).missing, JSON.stringify(listed)).to.deep.equal([]);
    }
  });

  it("a present name is missing when the only VMs of its name are foreign or carry another uid", () => {
    for (const listed of [vm('a', 'u2'), vm('a', 'u1', { ours: false }), vm('b', 'u1')]) {
      expect(plan({ vms: [listed], entries: [present('a', 'u1')] }).missing.map((m) => m.ref.name), JSON.stringify(listed)).to.deep.equal(['a']);
    }
  });

  it('a present name whose VM is there but whose in-place change no create applied is missing, unapplied; not once applied or failed (SPEC 2)', () => {
    const changing = present('a', 'u1', { generation: 4, changing: 4 });
    expect(plan({ vms: [vm('a', 'u1')], entries: [changing] }).missing).to.deep.equal([{ ref: { name: 'a', uid: 'u1', generation: 4, unapplied: true }, young: false }]);
    expect(plan({ vms: [vm('a', 'u1')], entries: [{ ...changing, updatedAt: JUST_YOUNG }] }).missing.map((m) => m.young)).to.deep.equal([true]);
    const failed = { reason: 'bad', jobId: 'create-a-4', at: OLD };
    for (const entry of [present('a', 'u1', { generation: 4 }), { ...changing, failed }, { ...changing, changing: 3 }]) {
      expect(plan({ vms: [vm('a', 'u1')], entries: [entry] }).missing, JSON.stringify(entry)).to.deep.equal([]);
    }
  });

  it('a present name whose create failed Permanent is listed as failed, not missing', () => {
    const p = plan({ entries: [present('a', 'u1', { failed: { reason: 'bad template', jobId: 'create-a-3', at: OLD } })] });
    expect(p.missing).to.deep.equal([]);
    expect(p.failedCreates).to.deep.equal([{ name: 'a', uid: 'u1', generation: 3, reason: 'bad template', failedJobId: 'create-a-3', failedAt: OLD }]);
  });
});

describe('the sweep backs up the lease timers (SPEC 31)', () => {
  const lease = (expiresAt: string, init: Partial<NonNullable<DesiredEntry['lease']>> = {}): NonNullable<DesiredEntry['lease']> => ({ expiresAt, version: 2, onExpiry: 'delete', ...init });
  const BEFORE = new Date(NOW.getTime() - 1000).toISOString();
  const AFTER = new Date(NOW.getTime() + 1000).toISOString();

  it('a lease past due is expired, VM or none, and is not a missing VM; one not yet due is left alone', () => {
    const p = plan({ vms: [vm('due', 'u1'), vm('later', 'u2', { vmid: 100101 })], entries: [present('due', 'u1', { lease: lease(BEFORE) }), present('later', 'u2', { lease: lease(AFTER) }), present('gone', 'u3', { lease: lease(NOW.toISOString()) })] });
    expect(p.expiredLeases.map((l) => [l.name, l.version, l.recorded])).to.deep.equal([
      ['due', 2, undefined],
      ['gone', 2, undefined],
    ]);
    expect(p.missing).to.deep.equal([]);
  });

  it('an expired stop whose VM still runs is expired again (its stop made sure of); once stopped, or with no VM, it is neither expired nor missing', () => {
    const stopped = lease(BEFORE, { onExpiry: 'stop', expiredAt: BEFORE });
    const p = plan({
      vms: [vm('runs', 'u1', { status: 'running' }), vm('halted', 'u2', { vmid: 100101, status: 'stopped' })],
      entries: [present('runs', 'u1', { lease: stopped, stopped: 3 }), present('halted', 'u2', { lease: stopped, stopped: 3 }), present('vanished', 'u3', { lease: stopped, stopped: 3 })],
    });
    expect(p.expiredLeases.map((l) => [l.name, l.recorded])).to.deep.equal([['runs', true]]);
    expect(p.missing).to.deep.equal([]);
  });
});
