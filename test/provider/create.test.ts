// SPEC 13: Create, its steps, adoption after a crash at every step
// boundary, the ownership check of correction 2, the template check.
import { expect } from 'chai';
import { PermanentError, TransientError } from '../../src/errors.js';
import { vmidForUid } from '../../src/provider/vmid.js';
import { formatMark, parseMark } from '../../src/provider/mark.js';
import type { CreateSpec, CreateStep, OperationContext } from '../../src/provider/types.js';
import type { VmConfig } from '../../src/proxmox/api.js';
import { FakeProxmox, type FakeMethod } from '../fakes/fake-proxmox.js';
import { addOurVm, harness, RANGE, testConfig, type Harness } from './harness.js';
import { rejection } from '../support/rejection.js';

const NAME = 'proxy-a';
const UID = 'b7e1c0de-0000-4000-8000-000000000001';
const VMID = vmidForUid(UID, RANGE);
const NEXT = VMID === RANGE.max ? RANGE.min : VMID + 1;
const STEPS: CreateStep[] = ['cloned', 'seeded', 'configured', 'resized', 'started', 'running', 'address'];
const WRITES: FakeMethod[] = ['clone', 'upload', 'putConfig', 'resize', 'start', 'stop', 'destroy', 'deleteVolume'];

function spec(over: Partial<CreateSpec> = {}): CreateSpec {
  return { name: NAME, uid: UID, cores: 4, memoryMiB: 4096, diskGiB: 10, waitForAddress: true, ...over };
}

function withSteps(h: Harness, killAfter?: CreateStep): { ctx: OperationContext; steps: CreateStep[] } {
  const steps: CreateStep[] = [];
  const ctx: OperationContext = {
    ...h.ctx,
    progress: (step) => {
      steps.push(step);
      if (step === killAfter) throw new Error(`killed after ${step}`);
    },
  };
  return { ctx, steps };
}

function writes(h: Harness): FakeMethod[] {
  return h.pve.methods().filter((m) => WRITES.includes(m));
}

function templateWith(over: VmConfig): FakeProxmox {
  const pve = new FakeProxmox({ templates: false });
  pve.addTemplate('pv1-1', 9001, over);
  return pve;
}

describe('Create (SPEC 13)', () => {
  it('a fresh create runs every step in order and ends running with an address', async () => {
    const h = harness();
    const { ctx, steps } = withSteps(h);
    const result = await h.provider.create(spec(), ctx);
    expect(steps).to.deep.equal(STEPS);
    expect(writes(h)).to.deep.equal(['clone', 'upload', 'putConfig', 'resize', 'start']);
    expect(result).to.deep.include({ providerId: `vms/${VMID}/${NAME}`, vmid: VMID, node: 'pv1-1', uid: UID, state: 'Running' });
    expect(result.address).to.match(/^192\.168\./);
    // The mark's time, written in the clone call (F11), on the test clock.
    expect(result.createdAt).to.equal('2026-11-30T10:00:00.000Z');
    const vm = h.pve.vm(VMID)!;
    expect(vm).to.include({ status: 'running', qmpstatus: 'running', clonedFull: true });
    expect(parseMark(vm.config.description)).to.deep.equal({ uid: UID, writtenAtCreate: result.createdAt });
    expect(vm.config).to.include({ name: NAME, cores: 4, memory: 4096, agent: '1', ide2: `proxy-seeds:iso/${NAME}-seed.iso,media=cdrom`, boot: 'order=scsi0;ide2' });
    expect(vm.config.scsi0).to.contain('size=10G');
    expect(h.pve.volumes('pv1-1', 'proxy-seeds').map((v) => v.volid)).to.deep.equal([`proxy-seeds:iso/${NAME}-seed.iso`]);
    expect(h.lines.length).to.be.at.least(6);
  });

  it('waits through the process board: task listings, one status/current, the agent alone for the address (SPEC 26)', async () => {
    const h = harness();
    await h.provider.create(spec(), h.ctx);
    const reads = h.pve.methods().filter((m) => !['clone', 'upload', 'putConfig', 'resize', 'start'].includes(m));
    // Placement and name look-up, the template, the clone's config; then waits only.
    expect(reads.filter((m) => m !== 'nodeTasks')).to.deep.equal(['clusterResources', 'clusterResources', 'getConfig', 'getConfig', 'statusCurrent', 'agentInterfaces']);
    expect(h.pve.count('taskStatus')).to.equal(0);
    // Four tasks (clone, upload, resize, start), each ended by its second listing (taskPolls 1).
    expect(h.pve.count('nodeTasks')).to.equal(8);
  });

  it('sends full=1, the name, the mark and the configured storage in the clone call', async () => {
    const h = harness({ config: testConfig([{ name: 'pv1-1', template: 9001, isoStorage: 'proxy-seeds', storage: 'local-lvm' }]) });
    await h.provider.create(spec(), h.ctx);
    const [node, template, params] = h.pve.callsTo('clone')[0]!.args as [string, number, { full: boolean; name: string; description: string; storage?: string; newid: number }];
    expect([node, template]).to.deep.equal(['pv1-1', 9001]);
    expect(params).to.include({ full: true, name: NAME, storage: 'local-lvm', newid: VMID });
    expect(params.description).to.equal(formatMark(UID, new Date(parseMark(params.description)!.writtenAtCreate!)));
  });

  for (const killAfter of STEPS) {
    it(`a create killed after '${killAfter}' and run again finishes the same VM with one clone`, async () => {
      const h = harness();
      const first = withSteps(h, killAfter);
      expect((await rejection(h.provider.create(spec(), first.ctx))).message).to.equal(`killed after ${killAfter}`);
      const again = withSteps(h);
      const result = await h.provider.create(spec(), again.ctx);
      expect(again.steps).to.deep.equal(STEPS);
      expect(result).to.include({ vmid: VMID, state: 'Running' });
      expect(h.pve.count('clone')).to.equal(1);
      expect(h.pve.vmsNamed(NAME)).to.have.length(1);
      expect(h.pve.vm(VMID)).to.include({ status: 'running' });
      expect(h.pve.vm(VMID)!.config.tags).to.equal('debian;pve_provisioner');
    });
  }

  it('a create killed mid-clone (a nameless, locked VM at our VMID, F8) waits it out and adopts it', async () => {
    const h = harness();
    // The crashed attempt's clone is still running: nameless and locked.
    const orphan = await h.pve.clone('pv1-1', 9001, { newid: VMID, name: NAME, description: formatMark(UID, h.clock.now()), full: true });
    h.pve.on('getConfig', async (args) => {
      if (args[1] === VMID && h.pve.count('getConfig') === 4) {
        while ((await h.pve.taskStatus('pv1-1', orphan)).status !== 'stopped');
      }
    });
    const result = await h.provider.create(spec(), h.ctx);
    expect(result).to.include({ vmid: VMID, state: 'Running' });
    expect(h.pve.count('clone')).to.equal(2);
    expect(h.pve.vmsNamed(NAME)).to.have.length(1);
  });

  it('probes past a VMID taken by a foreign VM (F4)', async () => {
    const h = harness();
    h.pve.addVm({ vmid: VMID, config: { name: 'someone-else' } });
    const result = await h.provider.create(spec(), h.ctx);
    expect(result.vmid).to.equal(NEXT);
    expect(h.pve.callsTo('clone').map((c) => (c.args[2] as { newid: number }).newid)).to.deep.equal([VMID, NEXT]);
    expect(h.pve.vm(VMID)!.config).to.deep.equal({ name: 'someone-else' });
  });

  it('refuses as Permanent a VM with our name but a foreign mark, and touches nothing', async () => {
    for (const description of ['made by hand', 'managed-by: pve-provisioner\nuid: another-uid']) {
      const h = harness();
      h.pve.addVm({ vmid: VMID, config: { name: NAME, description } });
      const err = await rejection(h.provider.create(spec(), h.ctx));
      expect(err, description).to.be.instanceOf(PermanentError);
      expect((err as PermanentError).reason).to.contain(`named ${NAME}`);
      expect(writes(h)).to.deep.equal([]);
    }
  });

  it('refuses as Permanent our name with a foreign mark found only through config-exists (nameless at first)', async () => {
    const h = harness();
    const orphan = await h.pve.clone('pv1-1', 9001, { newid: VMID, name: NAME, description: 'made by hand', full: true });
    h.pve.on('getConfig', async (args) => {
      if (args[1] === VMID) while ((await h.pve.taskStatus('pv1-1', orphan)).status !== 'stopped');
    });
    const err = await rejection(h.provider.create(spec(), h.ctx));
    expect(err).to.be.instanceOf(PermanentError);
    expect(h.pve.methods().filter((m) => m === 'upload' || m === 'putConfig')).to.deep.equal([]);
  });

  it('refuses a hibernated VM of ours as Permanent without touching it', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { config: { lock: 'suspended' } });
    const err = await rejection(h.provider.create(spec(), h.ctx));
    expect(err).to.be.instanceOf(PermanentError);
    expect((err as PermanentError).reason).to.contain('hibernated');
    expect(writes(h)).to.deep.equal([]);
  });

  const badTemplates: [string, VmConfig, RegExp][] = [
    ['not a template', { template: 0 }, /not a template/],
    ['a cloud-init drive', { ide2: 'local-lvm:vm-9000-cloudinit,media=cdrom' }, /cloud-init drive on ide2/],
    ['no net0', { net0: undefined }, /no net0/],
    ['a boot disk larger than asked', { scsi0: 'local-lvm:base-9001-disk-1,size=32G' }, /larger than the 10 GiB/],
  ];
  for (const [what, over, reason] of badTemplates) {
    it(`refuses a template with ${what} as Permanent before any clone`, async () => {
      const h = harness({ pve: templateWith(over) });
      const err = await rejection(h.provider.create(spec(), h.ctx));
      expect(err).to.be.instanceOf(PermanentError);
      expect((err as PermanentError).reason).to.match(reason).and.to.contain('template 9001 on node pv1-1');
      expect(h.pve.count('clone')).to.equal(0);
    });
  }

  it('resizes the boot disk, the first in the boot order that is not ide2 (F19)', async () => {
    const h = harness({
      pve: templateWith({ boot: 'order=ide2;scsi1;scsi0', ide2: 'none,media=cdrom', scsi1: 'local-lvm:base-9001-disk-2,size=2G' }),
    });
    await h.provider.create(spec(), h.ctx);
    expect(h.pve.callsTo('resize').map((c) => c.args.slice(2))).to.deep.equal([['scsi1', '10G']]);
  });

  it('on adoption after the config write (boot order=scsi0;ide2) still grows scsi0', async () => {
    const h = harness();
    await rejection(h.provider.create(spec(), withSteps(h, 'configured').ctx));
    expect(h.pve.vm(VMID)!.config.boot).to.equal('order=scsi0;ide2');
    await h.provider.create(spec(), h.ctx);
    expect(h.pve.callsTo('resize').map((c) => c.args.slice(2))).to.deep.equal([['scsi0', '10G']]);
  });

  it('only grows: a boot disk already as large as asked is not resized', async () => {
    const h = harness();
    const { ctx, steps } = withSteps(h);
    await h.provider.create(spec({ diskGiB: 3 }), ctx);
    expect(h.pve.count('resize')).to.equal(0);
    expect(steps).to.include('resized');
  });

  it('rewrites net0 with bridge and tag=, keeping the MAC; tags keep the template\'s and add ours', async () => {
    const h = harness({ config: testConfig([{ name: 'pv1-1', template: 9001, isoStorage: 'proxy-seeds', bridge: 'vmbr1', vlanTag: 4 }]) });
    h.pve.on('putConfig', (args) => {
      const cloned = h.pve.vm(args[1] as number)!.config.net0 as string;
      const mac = /=([0-9A-F:]{17})/i.exec(cloned)![1]!;
      expect((args[2] as Record<string, string>).net0).to.equal(`virtio=${mac},bridge=vmbr1,tag=4`);
    });
    await h.provider.create(spec(), h.ctx);
    const put = h.pve.callsTo('putConfig')[0]!.args[2] as Record<string, string>;
    expect(put.tags).to.equal('debian;pve_provisioner');
    expect(h.pve.vm(VMID)!.config.tags).to.equal('debian;pve_provisioner');
    expect(h.pve.vm(VMID)!.config.net0).to.match(/^virtio=BC:24:11:[0-9A-F:]{8},bridge=vmbr1,tag=4$/);
  });

  it('a template with protection: 1 gives a Running VM without it: the config write deletes the copied flag (SPEC 28)', async () => {
    const h = harness({ pve: templateWith({ protection: 1 }) });
    const result = await h.provider.create(spec(), h.ctx);
    expect(result.state).to.equal('Running');
    expect(h.pve.callsTo('putConfig')[0]!.args[2]).to.include({ delete: 'protection' });
    expect(h.pve.vm(VMID)!.config).not.to.have.property('protection');
    // The template keeps its flag: it is the operator's, not ours.
    expect(h.pve.vm(9001)!.config.protection).to.equal(1);
    // And the VM can be deleted.
    expect(await h.provider.delete({ name: NAME, uid: UID }, h.ctx)).to.include({ deleted: true });
  });

  it('sends no delete for a template without protection (SPEC 28)', async () => {
    const h = harness({ pve: templateWith({ protection: 0 }) });
    await h.provider.create(spec(), h.ctx);
    expect(h.pve.callsTo('putConfig')[0]!.args[2]).not.to.have.property('delete');
  });

  it('leaves net0 as cloned when no bridge or VLAN is configured', async () => {
    const h = harness();
    await h.provider.create(spec(), h.ctx);
    expect(h.pve.callsTo('putConfig')[0]!.args[2]).not.to.have.property('net0');
  });

  it('places on the online configured node with the most free memory', async () => {
    const pve = new FakeProxmox({
      nodes: [
        { name: 'a', maxmem: 64 * 2 ** 30, mem: 60 * 2 ** 30 },
        { name: 'b', maxmem: 64 * 2 ** 30, mem: 10 * 2 ** 30 },
        { name: 'c', maxmem: 128 * 2 ** 30, mem: 0, status: 'offline' },
      ],
    });
    const nodes = ['a', 'b', 'c'].map((name, i) => ({ name, template: 9001 + i, isoStorage: 'proxy-seeds' }));
    const h = harness({ pve, config: testConfig(nodes) });
    expect((await h.provider.create(spec(), h.ctx)).node).to.equal('b');
    expect(h.pve.callsTo('clusterResources').filter((c) => c.args[0] === 'node')).to.have.length(1);
  });

  it('refuses a node that is not configured before any call', async () => {
    const h = harness();
    const err = await rejection(h.provider.create(spec({ node: 'elsewhere' }), h.ctx));
    expect(err).to.be.instanceOf(PermanentError);
    expect(h.pve.calls).to.deep.equal([]);
  });

  it('refuses what the field table refuses as Permanent naming the field, before any call (SPEC 1, 24)', async () => {
    for (const [field, over] of [
      ['memoryMiB', { memoryMiB: 8 }],
      ['userData', { userData: '#cloud-config\n\uD800' }],
      ['vlanTag', { vlanTag: 4095 }],
    ] as const) {
      const h = harness();
      const err = await rejection(h.provider.create(spec(over), h.ctx));
      expect(err, field).to.be.instanceOf(PermanentError);
      expect((err as PermanentError).message, field).to.contain(field);
      expect(h.pve.calls, field).to.deep.equal([]);
    }
  });

  it('asks the caller before every write (SPEC 3)', async () => {
    const h = harness();
    const seq: string[] = [];
    for (const m of WRITES) h.pve.on(m, () => void seq.push(m));
    await h.provider.create(spec(), { ...h.ctx, beforeWrite: () => void seq.push('check') });
    expect(seq).to.deep.equal(['check', 'clone', 'check', 'upload', 'check', 'putConfig', 'check', 'resize', 'check', 'start']);
  });

  it('a caller that lost its lock stops before the next write', async () => {
    const h = harness();
    let allowed = 2;
    const err = await rejection(
      h.provider.create(spec(), {
        ...h.ctx,
        beforeWrite: () => {
          if (allowed-- <= 0) throw new Error('lock lost');
        },
      }),
    );
    expect(err.message).to.equal('lock lost');
    expect(writes(h)).to.deep.equal(['clone', 'upload']);
  });

  it('without waitForAddress ends once running, without asking the agent', async () => {
    const h = harness();
    const result = await h.provider.create(spec({ waitForAddress: false }), h.ctx);
    expect(result.state).to.equal('Provisioning');
    expect(h.pve.count('agentInterfaces')).to.equal(0);
  });

  it('waits for the guest agent, and gives up as Transient after budgets.addressSeconds', async () => {
    const h = harness();
    h.pve.on('start', (args) => {
      const vm = h.pve.vm(args[1] as number);
      if (vm) vm.agent.callsBeforeUp = 5;
    });
    expect((await h.provider.create(spec(), h.ctx)).state).to.equal('Running');
    expect(h.pve.count('agentInterfaces')).to.equal(6);

    const slow = harness();
    slow.pve.on('start', (args) => {
      const vm = slow.pve.vm(args[1] as number);
      if (vm) vm.agent.installed = false;
    });
    const err = await rejection(slow.provider.create(spec(), slow.ctx));
    expect(err).to.be.instanceOf(TransientError);
    expect(err.message).to.contain('an address from the guest agent');
  });

  it('waits until status and qmpstatus are both running before reporting running (SPEC 13 step 7)', async () => {
    const h = harness();
    let polls = 0;
    h.pve.on('statusCurrent', (args) => {
      const vm = h.pve.vm(args[1] as number)!;
      polls += 1;
      vm.qmpstatus = polls < 3 ? 'prelaunch' : 'running';
    });
    const seenAtRunning: string[] = [];
    await h.provider.create(spec({ waitForAddress: false }), {
      ...h.ctx,
      progress: (step) => {
        if (step === 'running') seenAtRunning.push(h.pve.vm(VMID)!.qmpstatus);
      },
    });
    expect(polls).to.equal(3);
    expect(seenAtRunning).to.deep.equal(['running']);
  });

  it('clones again at the same VMID when its holder vanished between the refusal and the look', async () => {
    const h = harness();
    h.pve.addVm({ vmid: VMID, config: { name: 'someone-else' } });
    h.pve.on('clusterResources', () => {
      if (h.pve.count('clone') === 1) h.pve.vms.delete(VMID);
    });
    expect((await h.provider.create(spec(), h.ctx)).vmid).to.equal(VMID);
    expect(h.pve.count('clone')).to.equal(2);
  });
});
