// SPEC 2, 13: a create that finds a VM of ours configured before, with
// other cores, memory or a smaller boot disk, changes it in place: the
// config write and the resize on a running VM, a stop and start when
// Proxmox holds a value for the next start, and the fields it changed in
// its result (the vm.updated webhook). Against the fake of the seam.
import { expect } from 'chai';
import { vmidForUid } from '../../src/provider/vmid.js';
import type { CreateSpec, CreateStep } from '../../src/provider/types.js';
import type { FakeVm } from '../fakes/fake-proxmox.js';
import { addOurVm, harness, RANGE, sizedLike, type Harness } from './harness.js';

const NAME = 'proxy-a';
const UID = 'u-1';
const VMID = vmidForUid(UID, RANGE);
const WAS = { cores: 2, memoryMiB: 2048, diskGiB: 10 };

function ourVm(h: Harness): FakeVm {
  const vm = h.pve.vm(VMID);
  if (vm === undefined) throw new Error(`VM ${VMID} is gone`);
  return vm;
}

function spec(over: Partial<CreateSpec> = {}): CreateSpec {
  return { name: NAME, uid: UID, ...WAS, waitForAddress: true, ...over };
}

/** A harness with a running VM of ours made by a create of WAS, plus `config`. */
function withRunningVm(config: Record<string, string | number> = {}) {
  const h = harness();
  addOurVm(h.pve, NAME, UID, { status: 'running', config: { ...sizedLike(WAS), ...config } });
  const steps: CreateStep[] = [];
  const ctx = { ...h.ctx, progress: (step: CreateStep) => void steps.push(step) };
  return { h, steps, ctx, writes: () => h.pve.methods().filter((m) => ['putConfig', 'resize', 'stop', 'start', 'upload'].includes(m)) };
}

describe('Create: in-place changes of a VM of ours (SPEC 2, 13)', () => {
  it('more cores on a running VM: written, held by Proxmox, applied by a stop and a start, said in the steps and the log', async () => {
    const { h, steps, ctx, writes } = withRunningVm();
    const result = await h.provider.create(spec({ cores: 4 }), ctx);
    expect(result).to.include({ state: 'Running', vmid: VMID }).and.to.have.property('changed').that.deep.equals(['cores']);
    expect(writes()).to.deep.equal(['putConfig', 'stop', 'start']);
    expect(h.pve.callsTo('putConfig')[0]?.args[2]).to.deep.equal({ cores: 4 });
    expect(ourVm(h)).to.include({ status: 'running' });
    expect(ourVm(h).config).to.include({ cores: 4 });
    expect(ourVm(h).pending ?? {}).to.deep.equal({});
    expect(steps).to.deep.equal(['cloned', 'seeded', 'configured', 'resized', 'restarted', 'started', 'running', 'address']);
    expect(h.lines).to.include.members([
      `configured running VM ${VMID}: cores=4`,
      `VM ${VMID}: Proxmox applies cores at the next start; stopping and starting it`,
      `restarted VM ${VMID}; it runs with its new cores`,
    ]);
  });

  it('a restart for a held value is a fresh boot to the address wait: its first agent call comes budgets.firstAddressSeconds after the start, not at once (SPEC 26)', async () => {
    const { h, ctx } = withRunningVm();
    let startedAt = Number.NaN;
    const agentCalls: number[] = [];
    h.pve.on('start', () => void (startedAt = h.clock.now().getTime()));
    h.pve.on('agentInterfaces', () => void agentCalls.push(h.clock.now().getTime() - startedAt));
    await h.provider.create(spec({ cores: 4 }), ctx);
    expect(agentCalls).to.have.length(1);
    expect(agentCalls[0]).to.be.at.least(h.config.budgets.firstAddressSeconds * 1000);
  });

  it('less memory on a running VM with memory hotplug and NUMA: taken live, no restart', async () => {
    const { h, steps, ctx, writes } = withRunningVm({ hotplug: 'network,disk,memory', numa: 1 });
    const result = await h.provider.create(spec({ memoryMiB: 1024 }), ctx);
    expect(result.changed).to.deep.equal(['memoryMiB']);
    expect(writes()).to.deep.equal(['putConfig']);
    expect(ourVm(h).config).to.include({ memory: 1024 });
    expect(steps).not.to.include('restarted');
    expect(h.lines).to.include(`VM ${VMID} took memory live (hotplug)`);
  });

  it('memory below what hotplug needs on a running VM: Proxmox refuses it (400, left pending), the running value is written back, no restart, Permanent naming memory', async () => {
    const { h, ctx, writes } = withRunningVm({ hotplug: 'network,disk,memory', numa: 1 });
    const err = await h.provider.create(spec({ cores: 4, memoryMiB: 512 }), ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.have.property('errorClass', 'Permanent');
    expect((err as { reason?: string }).reason).to.contain("memory: hotplug problem - memory can't be lower than 1024 MB");
    expect(writes()).to.deep.equal(['putConfig', 'putConfig']);
    expect(h.pve.callsTo('putConfig')[1]?.args[2]).to.deep.equal({ memory: 2048 });
    expect(ourVm(h)).to.include({ status: 'running' });
    expect(ourVm(h).config).to.include({ memory: 2048 });
    expect(ourVm(h).pending ?? {}, 'cores stays held for the next start, memory no more').to.deep.equal({ cores: 4 });
  });

  it('a larger disk on a running VM: a resize task, no restart', async () => {
    const { h, ctx, writes } = withRunningVm();
    const result = await h.provider.create(spec({ diskGiB: 20 }), ctx);
    expect(result.changed).to.deep.equal(['diskGiB']);
    expect(writes()).to.deep.equal(['resize']);
    expect(String(ourVm(h).config.scsi0)).to.contain('size=20G');
    expect(h.lines).to.include(`grew scsi0 of VM ${VMID} to 20 GiB`);
  });

  it('run again after the write, with the value still held: no second write, the restart, the same changed fields', async () => {
    const { h, ctx, writes } = withRunningVm();
    ourVm(h).pending = { cores: 4 };
    const result = await h.provider.create(spec({ cores: 4 }), ctx);
    expect(result.changed).to.deep.equal(['cores']);
    expect(writes()).to.deep.equal(['stop', 'start']);
    expect(ourVm(h).config).to.include({ cores: 4 });
  });

  it('a VM left stopped with the value held (a job cut between its stop and its start): the retry configures and starts it, nothing held', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { status: 'stopped', config: sizedLike(WAS) });
    ourVm(h).pending = { cores: 4 };
    const result = await h.provider.create(spec({ cores: 4 }), h.ctx);
    expect(result).to.include({ state: 'Running' });
    expect(ourVm(h)).to.include({ status: 'running' });
    expect(ourVm(h).config).to.include({ cores: 4 });
    expect(ourVm(h).pending ?? {}).to.deep.equal({});
    expect(h.pve.methods().filter((m) => m === 'stop')).to.deep.equal([]);
  });

  it('the same sizes on a running VM: nothing written, nothing changed', async () => {
    const { h, ctx, writes } = withRunningVm();
    const result = await h.provider.create(spec(), ctx);
    expect(result).not.to.have.property('changed');
    expect(writes()).to.deep.equal([]);
  });

  it('a stopped VM of ours configured before: configured and started with the new sizes, which it reports changed', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { status: 'stopped', config: sizedLike(WAS) });
    const result = await h.provider.create(spec({ cores: 3, diskGiB: 12 }), h.ctx);
    expect(result.changed).to.deep.equal(['cores', 'diskGiB']);
    expect(ourVm(h)).to.include({ status: 'running' });
    expect(ourVm(h).config).to.include({ cores: 3 });
  });

  it('a clone of ours never configured (no tag yet) changes nothing the caller asked for: its first create goes on', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { status: 'stopped', config: { tags: 'debian' } });
    const result = await h.provider.create(spec({ cores: 4 }), h.ctx);
    expect(result).not.to.have.property('changed');
    expect(ourVm(h).config).to.include({ cores: 4 });
  });
});
