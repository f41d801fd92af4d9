// SPEC 5, 26: the provider records every seed it uploads before the upload
// is sent and forgets it once the seed is deleted, so a steady sweep reads
// the records instead of listing every node's seed storage; the storages'
// shared flags are read once per process, not per sweep.
import { expect } from 'chai';
import type { SeedRecord, SeedRecords } from '../../src/provider/seed-records.js';
import type { CreateSpec } from '../../src/provider/types.js';
import { vmidForUid } from '../../src/provider/vmid.js';
import { FakeProxmox } from '../fakes/fake-proxmox.js';
import { rejection } from '../support/rejection.js';
import { RANGE, harness, testConfig, type Harness } from './harness.js';

const NAME = 'proxy-a';
const UID = 'b7e1c0de-0000-4000-8000-000000000001';
const VOLID = `proxy-seeds:iso/${NAME}-seed.iso`;

class MemoryRecords implements SeedRecords {
  readonly byPlace = new Map<string, SeedRecord>();
  intend(record: SeedRecord): Promise<void> {
    this.byPlace.set(`${record.node}/${record.volid}`, record);
    return Promise.resolve();
  }
  forget(node: string, volid: string): Promise<void> {
    this.byPlace.delete(`${node}/${volid}`);
    return Promise.resolve();
  }
  list(): Promise<SeedRecord[]> {
    return Promise.resolve([...this.byPlace.values()]);
  }
  places(): string[] {
    return [...this.byPlace.keys()].sort();
  }
}

function spec(over: Partial<CreateSpec> = {}): CreateSpec {
  return { name: NAME, uid: UID, cores: 1, memoryMiB: 512, diskGiB: 10, waitForAddress: false, ...over };
}

function recorded(options: { pve?: FakeProxmox; nodes?: string[] } = {}): { h: Harness; records: MemoryRecords } {
  const records = new MemoryRecords();
  const nodes = options.nodes ?? ['pv1-1'];
  const config = testConfig(nodes.map((name, i) => ({ name, template: 9001 + i, isoStorage: 'proxy-seeds' })));
  const pve = options.pve ?? new FakeProxmox({ nodes: nodes.map((name) => ({ name })) });
  return { h: harness({ pve, config, seedRecords: records }), records };
}

/** The storage calls a seed listing makes: content listings and storage listings. */
function storageCalls(h: Harness): string[] {
  return h.pve.calls.filter((c) => c.method === 'storageContent' || c.method === 'storages').map((c) => `${c.method} ${String(c.args[0])}`);
}

describe('seed records (SPEC 5, 26)', () => {
  it('a create records its seed before the upload is sent, with the VM it is for', async () => {
    const { h, records } = recorded();
    let atUpload: string[] = [];
    h.pve.on('upload', () => void (atUpload = records.places()));

    await h.provider.create(spec(), h.ctx);

    expect(atUpload).to.deep.equal([`pv1-1/${VOLID}`]);
    const [record] = await records.list();
    expect(record).to.deep.include({ node: 'pv1-1', storage: 'proxy-seeds', volid: VOLID, name: NAME, uid: UID, vmid: vmidForUid(UID, RANGE) });
  });

  it('a create killed at its upload leaves the record and no seed: never a seed without a record', async () => {
    const { h, records } = recorded();
    h.pve.failNext('upload', new Error('SIGKILL'));

    expect((await rejection(h.provider.create(spec(), h.ctx))).message).to.contain('SIGKILL');

    expect(records.places()).to.deep.equal([`pv1-1/${VOLID}`]);
    expect(h.pve.volumes('pv1-1', 'proxy-seeds').map((v) => v.volid)).to.not.include(VOLID);
  });

  it('deleting the VM deletes its seed and forgets the record', async () => {
    const { h, records } = recorded();
    await h.provider.create(spec(), h.ctx);

    await h.provider.delete({ name: NAME, uid: UID }, h.ctx);

    expect(records.places()).to.deep.equal([]);
    expect(h.pve.volumes('pv1-1', 'proxy-seeds').map((v) => v.volid)).to.not.include(VOLID);
  });

  it('a delete that finds no VM forgets the records of every node, the seed there or not (the upload never ran)', async () => {
    const { h, records } = recorded({ nodes: ['pv1-1', 'pv1-2'] });
    h.pve.addVolume('pv1-1', 'proxy-seeds', VOLID);
    await records.intend({ node: 'pv1-1', storage: 'proxy-seeds', volid: VOLID, name: NAME, uid: UID, vmid: 100, at: '2026-11-30T09:00:00Z' });
    await records.intend({ node: 'pv1-2', storage: 'proxy-seeds', volid: VOLID, name: NAME, uid: UID, vmid: 100, at: '2026-11-30T09:00:00Z' });

    expect((await h.provider.delete({ name: NAME }, h.ctx)).seedsDeleted).to.equal(1);

    expect(records.places()).to.deep.equal([]);
  });

  it('the sweep\'s seed delete forgets the record', async () => {
    const { h, records } = recorded();
    await h.provider.create(spec(), h.ctx);
    const [seed] = await h.provider.listRecordedSeeds(h.ctx);
    if (!seed) throw new Error('no recorded seed');

    await h.provider.deleteSeed(seed, h.ctx);

    expect(records.places()).to.deep.equal([]);
  });

  it('the recorded seeds cost no Proxmox call once a listing read the shared flags', async () => {
    const { h, records } = recorded();
    await h.provider.create(spec(), h.ctx);
    await records.intend({ node: 'pv1-1', storage: 'proxy-seeds', volid: 'proxy-seeds:iso/b-seed.iso', name: 'b', uid: 'u-b', vmid: 101, at: '2026-11-30T09:00:00Z' });
    await h.provider.listSeeds(h.ctx);
    h.pve.calls.length = 0;

    const seeds = await h.provider.listRecordedSeeds(h.ctx);

    expect(h.pve.calls).to.deep.equal([]);
    expect(seeds.map((s) => [s.node, s.volid, s.name, s.shared])).to.deep.equal([
      ['pv1-1', VOLID, NAME, false],
      ['pv1-1', 'proxy-seeds:iso/b-seed.iso', 'b', false],
    ]);
    expect(seeds[1]?.ctime).to.equal(Date.parse('2026-11-30T09:00:00Z') / 1000);
  });

  it('with no flag known yet, one storage listing per node, not per record, and it is kept for the next sweeps', async () => {
    const { h, records } = recorded();
    for (const name of ['a', 'b', 'c']) {
      await records.intend({ node: 'pv1-1', storage: 'proxy-seeds', volid: `proxy-seeds:iso/${name}-seed.iso`, name, uid: `u-${name}`, vmid: 100, at: '2026-11-30T09:00:00Z' });
    }

    await h.provider.listRecordedSeeds(h.ctx);
    await h.provider.listRecordedSeeds(h.ctx);

    expect(storageCalls(h)).to.deep.equal(['storages pv1-1']);
  });

  it('a record of a node or storage no longer configured, or of another file, is skipped (the storage listing covers configured nodes only)', async () => {
    const { h, records } = recorded();
    await records.intend({ node: 'gone-node', storage: 'proxy-seeds', volid: VOLID, name: NAME, uid: UID, vmid: 100, at: '2026-11-30T09:00:00Z' });
    await records.intend({ node: 'pv1-1', storage: 'other', volid: `other:iso/${NAME}-seed.iso`, name: NAME, uid: UID, vmid: 100, at: '2026-11-30T09:00:00Z' });
    await records.intend({ node: 'pv1-1', storage: 'proxy-seeds', volid: 'proxy-seeds:iso/debian.iso', name: NAME, uid: UID, vmid: 100, at: '2026-11-30T09:00:00Z' });

    expect(await h.provider.listRecordedSeeds(h.ctx)).to.deep.equal([]);
  });
});
