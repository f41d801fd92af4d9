// SPEC 34 (issue 33): "the sweep's orphan holds": a tenant's hold whose
// name+uid has no VM of ours and whose name is not present with that uid
// is freed, its sizes off the tenant's usage, unless the name's lock is
// held or a job for it is pending. The sweep as the worker runs it
// (createReconcileRunner) over the fake Proxmox, with the registry and the
// holds on the real Redis, written as the accept's script leaves them.
import { expect } from 'chai';
import { TenantHoldStore } from '../../src/tenants/hold-store.js';
import { holdJson, putHold, testHold } from '../support/tenant-holds.js';
import { proxmoxWorld, type ProxmoxWorld } from './proxmox-world.js';

describe("the sweep and the tenants' holds (SPEC 34)", function () {
  this.timeout(20_000);
  let w: ProxmoxWorld;
  afterEach(() => w.close());

  it('frees a hold with no VM and no present name, and keeps the holds of present names and of VMs still there', async () => {
    w = proxmoxWorld();
    const store = new TenantHoldStore(w.redis, w.prefix);
    await w.tombstone('gone-1', 'u1');
    await w.present('web-1', 'u2');
    w.ourVm('web-1', 'u2');
    // Present, its create not run yet: no VM.
    await w.present('db-1', 'u3');
    // Deleted, its VM still there (the sweep enqueues its delete; that job ends the hold).
    await w.tombstone('old-1', 'u4');
    w.ourVm('old-1', 'u4');
    // Present with another uid, its VM made: the old uid's hold is an orphan.
    await w.present('app-1', 'u6');
    w.ourVm('app-1', 'u6');
    await putHold(w.redis, w.prefix, 'gone-1', 'u1', testHold('acme'));
    await putHold(w.redis, w.prefix, 'stray-1', 'u9', testHold('beta'));
    await putHold(w.redis, w.prefix, 'web-1', 'u2', testHold('acme', { cores: 1 }));
    await putHold(w.redis, w.prefix, 'db-1', 'u3', testHold('acme', { cores: 1 }));
    await putHold(w.redis, w.prefix, 'old-1', 'u4', testHold('acme', { cores: 1 }));
    await putHold(w.redis, w.prefix, 'app-1', 'u5', testHold('acme'));
    await putHold(w.redis, w.prefix, 'app-1', 'u6', testHold('acme', { cores: 1 }));

    const report = await w.report();

    expect(report.tenantHolds.freed.map((hold) => [hold.name, hold.uid, hold.tenant]).sort()).to.deep.equal([
      ['app-1', 'u5', 'acme'],
      ['gone-1', 'u1', 'acme'],
      ['stray-1', 'u9', 'beta'],
    ]);
    for (const [name, uid] of [['gone-1', 'u1'], ['stray-1', 'u9'], ['app-1', 'u5']] as const) expect(await holdJson(w.redis, w.prefix, name, uid), name).to.equal(null);
    for (const [name, uid] of [['web-1', 'u2'], ['db-1', 'u3'], ['old-1', 'u4'], ['app-1', 'u6']] as const) expect(await holdJson(w.redis, w.prefix, name, uid), name).to.not.equal(null);
    expect(await store.usage('acme'), 'the four kept holds of 1 core').to.deep.equal({ vms: 4, cores: 4, memoryMiB: 8192, diskGiB: 80 });
    expect(await store.usage('beta')).to.deep.equal({ vms: 0, cores: 0, memoryMiB: 0, diskGiB: 0 });
    expect(report.tenantHolds.pending).to.deep.equal([]);
    expect(report.counts).to.include({ tenantHoldsFreed: 3 });
    expect(w.findings.filter((kind) => kind.startsWith('tenant_'))).to.deep.equal(['tenant_hold_freed', 'tenant_hold_freed', 'tenant_hold_freed']);
    expect(w.lines).to.include('freed tenant hold of stray-1 uid u9 (tenant beta): no VM of ours carries it and the name is not present with it');
    expect(w.lines.at(-1)).to.contain('tenant holds freed 3 (pending 0)');
  });

  it("leaves a hold to the name's pending or running job, and a dry run frees nothing", async () => {
    w = proxmoxWorld();
    await w.tombstone('busy-1', 'u1');
    await w.tombstone('queued-1', 'u2');
    await w.tombstone('gone-2', 'u3');
    await putHold(w.redis, w.prefix, 'busy-1', 'u1', testHold('acme'));
    await putHold(w.redis, w.prefix, 'queued-1', 'u2', testHold('acme'));
    await putHold(w.redis, w.prefix, 'gone-2', 'u3', testHold('acme'));
    await w.locks.tryAcquire('busy-1', 60_000);
    // The name's delete, waiting in the queue under the job id its record names.
    const queued = await w.registry.get('queued-1');
    await w.queues.vm.add('delete', { name: 'queued-1' }, { jobId: queued?.jobId ?? '' });

    const dry = await w.report(true);
    expect(dry.tenantHolds.freed.map((hold) => hold.name)).to.deep.equal(['gone-2']);
    expect(dry.tenantHolds.pending.map((hold) => hold.name).sort()).to.deep.equal(['busy-1', 'queued-1']);
    expect(await holdJson(w.redis, w.prefix, 'gone-2', 'u3'), 'a dry run').to.not.equal(null);
    expect(w.lines.at(-1)).to.contain('tenant holds would free 1 (pending 2)');

    const report = await w.report();
    expect(report.tenantHolds.freed.map((hold) => hold.name)).to.deep.equal(['gone-2']);
    expect(await holdJson(w.redis, w.prefix, 'busy-1', 'u1')).to.not.equal(null);
    expect(await holdJson(w.redis, w.prefix, 'queued-1', 'u2')).to.not.equal(null);
    expect(await holdJson(w.redis, w.prefix, 'gone-2', 'u3')).to.equal(null);
    expect((await new TenantHoldStore(w.redis, w.prefix).usage('acme')).vms).to.equal(2);
  });

  it('keeps a hold whose name was created again with its uid after the sweep read the registry', async () => {
    w = proxmoxWorld();
    await w.tombstone('again-1', 'u1');
    await putHold(w.redis, w.prefix, 'again-1', 'u1', testHold('acme'));
    // The sweep lists Proxmox after reading the registry: the create lands in between.
    const list = w.h.provider.listTaggedOrNamed.bind(w.h.provider);
    w.h.provider.listTaggedOrNamed = async (...args) => {
      await w.present('again-1', 'u1');
      return list(...args);
    };
    const report = await w.report();
    expect(report.tenantHolds.freed).to.deep.equal([]);
    expect(await holdJson(w.redis, w.prefix, 'again-1', 'u1')).to.not.equal(null);
  });
});
