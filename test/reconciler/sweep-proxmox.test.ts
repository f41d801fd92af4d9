// SPEC 5, 11, 14, 15: the sweep over createProvider and the FakeProxmox seam
// fake, with the job layer's registry, name locks and vm queue on the real
// Redis. The sweep destroys nothing itself: orphans get delete jobs
// (name and uid), missing VMs create jobs; only seeds it deletes itself.
import { expect } from 'chai';
import { keys } from '../../src/redis-keys.js';
import { FakeProxmox } from '../fakes/fake-proxmox.js';
import { fakeErrors } from '../fakes/fake-errors.js';
import { NODE, SEEDS, YOUNG, proxmoxWorld } from './proxmox-world.js';
import type { ProxmoxWorld } from './proxmox-world.js';

describe('reconcile sweep over the provider and the seam fake (SPEC 5, real Redis)', () => {
  let w: ProxmoxWorld;

  afterEach(async () => {
    // No test ever has the sweep change a VM in Proxmox: only seed deletes.
    expect(w.writes().filter((call) => !call.startsWith('deleteVolume'))).to.deep.equal([]);
    await w.close();
  });

  it('handles an orphan, an old uid under a re-created name, a seed with no VM and a VM deleted by hand in one sweep', async () => {
    w = proxmoxWorld();
    await w.expired('orphan-a', 'uid-a');
    w.ourVm('orphan-a', 'uid-a');
    w.seed('orphan-a');
    await w.tombstone('web', 'uid-old');
    const webGeneration = await w.present('web', 'uid-new');
    w.ourVm('web', 'uid-old');
    w.ourVm('web', 'uid-new');
    w.seed('web');
    await w.tombstone('gone', 'uid-g');
    w.seed('gone');
    const dbGeneration = await w.present('db', 'uid-db');
    w.seed('db'); // its VM was destroyed by hand in the Proxmox UI

    const report = await w.report();

    expect(await w.added()).to.deep.equal([
      ['create', 'db', 'uid-db'],
      ['delete', 'orphan-a', 'uid-a'],
      ['delete', 'web', 'uid-old'],
    ]);
    const generations = (await w.addedJobs()).map((job) => [job.name, (job.data as { name: string; generation: number }).name, (job.data as { generation: number }).generation]);
    expect(generations).to.deep.include.members([
      ['create', 'db', dbGeneration],
      ['delete', 'web', webGeneration],
    ]);
    expect(w.writes()).to.deep.equal([`deleteVolume ${NODE} ${SEEDS} ${SEEDS}:iso/gone-seed.iso`]);
    expect(w.seedsLeft()).to.deep.equal([`${SEEDS}:iso/db-seed.iso`, `${SEEDS}:iso/orphan-a-seed.iso`, `${SEEDS}:iso/web-seed.iso`]);
    // The reconciler's deletes recorded no desired state: web stays present with its new uid.
    expect(await w.registry.get('web')).to.include({ state: 'present', uid: 'uid-new', generation: webGeneration });
    expect(await w.registry.get('orphan-a')).to.equal(undefined);
    expect(report.orphans.deleted.map((o) => [o.name, o.uid, o.reason])).to.deep.equal([
      ['orphan-a', 'uid-a', 'unknown name'],
      ['web', 'uid-old', 'present with another uid'],
    ]);
    expect(report.seeds.deleted.map((s) => s.name)).to.deep.equal(['gone']);
    expect(report.missing.reenqueued.map((m) => m.name)).to.deep.equal(['db']);
    expect(report.counts).to.deep.equal({
      listed: 3,
      ours: 3,
      orphansDeleted: 2,
      orphansSkipped: 0,
      unknown: 0,
      seedsDeleted: 1,
      seedsSkipped: 0,
      missingReenqueued: 1,
      missingSkipped: 0,
      leasesExpired: 0,
      addressesFreed: 0,
      addressesUnleased: 0,
      tenantHoldsFreed: 0,
      errors: 0,
    });
    expect(w.findings.sort()).to.deep.equal(['missing_vm', 'orphan_seed', 'orphan_vm', 'orphan_vm']);
    expect(w.lines.at(-1)).to.equal(
      'listed 3, ours 3; orphan VMs deleted 2 (skipped: young 0, locked 0, pending 0, protected 0; unknown 0); seeds deleted 1 of 4 (storages listed); missing VMs re-enqueued 1; errors 0',
    );
  });

  it('leaves a VM younger than the grace period and a name whose lock is held alone', async () => {
    w = proxmoxWorld();
    await w.expired('fresh', 'uid-f');
    w.ourVm('fresh', 'uid-f', { createdAt: YOUNG });
    await w.expired('busy', 'uid-b');
    w.ourVm('busy', 'uid-b');
    await w.tombstone('busy-seedless', 'uid-s');
    w.seed('busy-seedless');
    await w.tombstone('young-seedless', 'uid-y');
    w.seed('young-seedless', YOUNG);
    await w.locks.tryAcquire('busy', 60_000);
    await w.locks.tryAcquire('busy-seedless', 60_000);

    const report = await w.report();

    expect(await w.added()).to.deep.equal([]);
    expect(w.writes()).to.deep.equal([]);
    expect(report.orphans.skippedYoung.map((o) => o.name)).to.deep.equal(['fresh']);
    expect(report.orphans.skippedLocked.map((o) => o.name)).to.deep.equal(['busy']);
    expect(report.seeds.skippedLocked.map((s) => s.name)).to.deep.equal(['busy-seedless']);
    expect(report.seeds.skippedYoung.map((s) => s.name)).to.deep.equal(['young-seedless']);
    expect(report.counts).to.include({ orphansDeleted: 0, orphansSkipped: 2, seedsDeleted: 0, seedsSkipped: 2 });
  });

  it('finds and deletes a VM cloned but not yet tagged (a crash between clone and config) under a tombstoned name', async () => {
    w = proxmoxWorld();
    await w.tombstone('crashed', 'uid-c');
    w.ourVm('crashed', 'uid-c', { tagged: false });

    const report = await w.report();

    expect(await w.added()).to.deep.equal([['delete', 'crashed', 'uid-c']]);
    expect(report.orphans.deleted.map((o) => [o.name, o.reason])).to.deep.equal([['crashed', 'tombstoned name']]);
  });

  it("enqueues the delete of a clone not yet tagged that has its template's protection: the delete clears a flag no one set (SPEC 28)", async () => {
    w = proxmoxWorld();
    await w.tombstone('crashed', 'uid-c');
    w.ourVm('crashed', 'uid-c', { tagged: false }).config.protection = 1;

    const report = await w.report();

    expect(await w.added()).to.deep.equal([['delete', 'crashed', 'uid-c']]);
    expect(report.orphans.protected).to.deep.equal([]);
  });

  it('never touches a VM that is not ours: no mark, another tag, another uid under a name we do not know', async () => {
    w = proxmoxWorld();
    await w.present('web', 'uid-web');
    w.ourVm('web', 'uid-web');
    await w.tombstone('gone', 'uid-g');
    w.pve.addVm({ vmid: 300, node: NODE, config: { name: 'hand-made', tags: 'pve_provisioner', description: 'made by hand' } });
    w.pve.addVm({ vmid: 301, node: NODE, config: { name: 'web', tags: 'pve_provisioner', description: 'not our mark' } });
    w.pve.addVm({ vmid: 302, node: NODE, config: { name: 'gone', tags: 'other_tool' } });
    w.pve.addVm({ vmid: 303, node: NODE, config: { name: 'stranger', tags: 'other_tool', description: 'managed-by: pve-provisioner\nuid: uid-x\nwritten-at-create: 2020-01-01T00:00:00Z' } });
    w.ourVm('never-recorded', 'uid-n'); // our mark and tag, a name this registry never recorded
    w.seed('elsewhere'); // a seed with no VM under a name never recorded (another installation's?)
    // Tagged, its config unreadable (a Proxmox 5xx): maybe the present name's VM, maybe not.
    await w.present('murky', 'uid-m');
    w.pve.addVm({ vmid: 304, node: NODE, config: { name: 'murky', tags: 'pve_provisioner' } });
    w.seed('murky');
    w.pve.on('getConfig', (args) => {
      if (args[1] === 304) throw fakeErrors.vmLocked('backup');
    });

    const report = await w.report();

    expect(await w.added()).to.deep.equal([]);
    expect(w.writes()).to.deep.equal([]);
    expect(report.orphans.unknown.map((u) => u.name).sort()).to.deep.equal(['murky', 'never-recorded']);
    expect(report.seeds.neverRecorded.map((s) => s.name)).to.deep.equal(['elsewhere']);
  });

  it('leaves alone an untagged VM of a known name whose config read fails: no re-create, no delete, its seed kept (SPEC 5, 14)', async () => {
    w = proxmoxWorld();
    // Both cloned just before a crash (no tag yet, SPEC 11), their configs unreadable (a 500, a node unreachable).
    await w.present('wanted', 'uid-w');
    const wanted = w.ourVm('wanted', 'uid-w', { tagged: false });
    w.seed('wanted');
    await w.tombstone('gone', 'uid-g');
    const gone = w.ourVm('gone', 'uid-g', { tagged: false });
    w.seed('gone');
    w.pve.on('getConfig', (args) => {
      if (args[1] === wanted.vmid) throw fakeErrors.injected('internal error');
      if (args[1] === gone.vmid) throw fakeErrors.noRouteToHost();
    });

    const report = await w.report();

    expect(await w.added()).to.deep.equal([]);
    expect(w.writes()).to.deep.equal([]);
    expect(report.orphans.unknown.map((u) => u.name).sort()).to.deep.equal(['gone', 'wanted']);
    expect(report.missing.reenqueued).to.deep.equal([]);
    expect(report.seeds.deleted).to.deep.equal([]);
  });

  it("deletes no seed while a nameless VM with an unreadable config is listed: it may be that seed's VM (SPEC 5, 23)", async () => {
    w = proxmoxWorld();
    await w.tombstone('gone', 'uid-g');
    w.seed('gone');
    // A clone pvestatd has not named yet (nameless in /cluster/resources), its config read failing.
    w.pve.statdEvery = 1000;
    const clone = w.ourVm('gone', 'uid-g', { tagged: false });
    w.pve.on('getConfig', (args) => {
      if (args[1] === clone.vmid) throw fakeErrors.injected('internal error');
    });

    const report = await w.report();

    expect(w.writes()).to.deep.equal([]);
    expect(report.seeds.deleted).to.deep.equal([]);
    expect(report.orphans.unknown.map((u) => u.vmid)).to.deep.equal([clone.vmid]);
    expect(w.seedsLeft()).to.have.length(1);
  });

  it('fails as a whole when the cluster listing fails, acting on nothing (SPEC 5, 14)', async () => {
    w = proxmoxWorld();
    await w.present('db', 'uid-db');
    await w.tombstone('gone', 'uid-g');
    w.seed('gone');
    w.pve.failNext('clusterResources', fakeErrors.noRouteToHost());

    const failed = await w.sweep().then(
      () => undefined,
      (err: unknown) => err,
    );

    expect(failed).to.be.instanceOf(Error);
    expect(await w.added()).to.deep.equal([]);
    expect(w.writes()).to.deep.equal([]);
  });

  it('with dryRun reports what it would do and changes nothing', async () => {
    w = proxmoxWorld();
    await w.expired('orphan-a', 'uid-a');
    w.ourVm('orphan-a', 'uid-a');
    await w.tombstone('gone', 'uid-g');
    w.seed('gone');
    await w.present('db', 'uid-db');
    const before = await w.redis.hgetall(keys.desired(w.prefix, 'db'));

    const report = await w.report(true);

    expect(await w.added()).to.deep.equal([]);
    expect(w.writes()).to.deep.equal([]);
    expect(await w.redis.hgetall(keys.desired(w.prefix, 'db'))).to.deep.equal(before);
    expect(report).to.include({ dryRun: true });
    expect(report.orphans.deleted.map((o) => o.name)).to.deep.equal(['orphan-a']);
    expect(report.seeds.deleted.map((s) => s.name)).to.deep.equal(['gone']);
    expect(report.missing.reenqueued.map((m) => m.name)).to.deep.equal(['db']);
  });

  it('runs one of two sweeps started at once; the other is skipped', async () => {
    w = proxmoxWorld();
    await w.present('db', 'uid-db');
    const outcomes = await Promise.all([w.sweep(), w.sweep()]);
    expect(outcomes.filter((o) => 'skipped' in o)).to.have.length(1);
    expect(await w.added()).to.deep.equal([['create', 'db', 'uid-db']]);
  });

  it('makes as many API calls with 1,000 foreign VMs as without: they follow our 10 VMs, not the cluster', async () => {
    w = proxmoxWorld(); // stays empty; each count below runs in a world of its own
    const callsFor = async (foreign: number): Promise<Record<string, number>> => {
      const pve = new FakeProxmox();
      for (let i = 0; i < foreign; i++) pve.addVm({ vmid: 1000 + i, node: NODE, config: { name: `foreign-${i}`, tags: i % 2 ? 'other' : '' } });
      const world = proxmoxWorld({ pve });
      try {
        for (let i = 0; i < 10; i++) {
          await world.present(`ours-${i}`, `uid-${i}`);
          world.ourVm(`ours-${i}`, `uid-${i}`);
          world.seed(`ours-${i}`);
        }
        const report = await world.report();
        expect(report).to.include({ ours: 10 });
        expect(world.writes()).to.deep.equal([]);
        const counts: Record<string, number> = {};
        for (const call of pve.calls) counts[call.method] = (counts[call.method] ?? 0) + 1;
        return counts;
      } finally {
        await world.close();
      }
    };
    const withoutForeign = await callsFor(0);
    const withForeign = await callsFor(1000);
    // One cluster listing for the tagged VMs and every known name
    // (listTaggedOrNamed), one config read per VM of ours, one seed listing
    // and one storage listing (the shared flag) per node.
    expect(withForeign).to.deep.equal({ clusterResources: 1, getConfig: 10, storageContent: 1, storages: 1 });
    expect(withForeign).to.deep.equal(withoutForeign);
  });
  it('a protected orphan is reported with what to clear, one line per sweep, and no delete is enqueued; cleared, the next sweep deletes it (SPEC 28)', async () => {
    w = proxmoxWorld();
    await w.tombstone('kept', 'uid-k');
    const vm = w.ourVm('kept', 'uid-k');
    vm.config.protection = 1;
    w.seed('kept');
    for (const round of [1, 2]) {
      w.lines.length = 0;
      const report = await w.report();
      expect(await w.added(), `sweep ${round}`).to.deep.equal([]);
      expect(report.orphans.protected.map((o) => [o.name, o.uid, o.vmid, o.reason]), `sweep ${round}`).to.deep.equal([['kept', 'uid-k', vm.vmid, 'tombstoned name']]);
      expect(report.orphans.deleted).to.deep.equal([]);
      expect(report.counts.orphansSkipped).to.equal(1);
      const said = w.lines.filter((line) => line.startsWith('left alone, protected'));
      expect(said, `sweep ${round}`).to.have.length(1);
      expect(said[0]).to.contain(`qm set ${vm.vmid} --protection 0`);
    }
    // Its seed stays while the VM is there.
    expect(w.seedsLeft()).to.deep.equal([`${SEEDS}:iso/kept-seed.iso`]);
    delete vm.config.protection;
    const after = await w.report();
    expect(await w.added()).to.deep.equal([['delete', 'kept', 'uid-k']]);
    expect(after.orphans.protected).to.deep.equal([]);
  });
});
