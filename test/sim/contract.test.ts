// The contract suite (SPEC 8, SPEC 18): the same scenarios run against the
// simulator over HTTP through the real client and against the in-memory
// fake, and both must give the same transcript: the same values, error
// texts, 400 maps and SPEC 17 classes, and the same state transitions.
// Neither may drift from the facts (F2-F20) without this failing.
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { isApiError } from '../../src/proxmox/api-error.js';
import type { PendingEntry, ProxmoxApi, Upid } from '../../src/proxmox/api.js';
import { classifyError } from '../../src/proxmox/classify.js';
import { fakeWorld, simWorld, type World, type WorldOptions } from './contract-worlds.js';

type Outcome = { ok: unknown } | { error: { status: number; message: string; errors?: Record<string, string>; class: string } };

async function attempt(call: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: await call() };
  } catch (err) {
    if (!isApiError(err)) throw err;
    return { error: { status: err.status, message: err.message, ...(err.errors ? { errors: err.errors } : {}), class: classifyError(err).errorClass } };
  }
}

/** A UPID reduced to what both worlds agree on: the node that runs it and the task type. */
function upidShape(upid: unknown): string {
  const [, node, , , , type] = String(upid).split(':');
  return `${node}:${type}`;
}

async function finish(world: World, upid: Upid): Promise<string> {
  const node = String(upid).split(':')[1] ?? '';
  for (let i = 0; i < 100; i++) {
    const status = await world.api.taskStatus(node, upid);
    if (status.status === 'stopped') return status.exitstatus ?? '';
    world.tick();
  }
  throw new Error(`task ${upid} never ended`);
}

const iso = (bytes: number) => ({ size: bytes, open: () => Readable.from([Buffer.alloc(bytes, 7)]) });

const clone = (api: ProxmoxApi, newid = 199999) =>
  api.clone('pv1-1', 9001, { newid, name: 'proxy-reconaaaaaaaaaaa', description: 'managed-by: pve-provisioner\nuid: u-1', full: true });

async function cloned(world: World, newid = 199999): Promise<void> {
  await finish(world, await clone(world.api, newid));
}

type Scenario = (world: World) => Promise<unknown>;

const ONE_NODE: Record<string, Scenario> = {
  'the cluster status of a standalone host is its own node, local (SPEC 28)': async ({ api }) => api.clusterStatus(),

  'a missing VM answers F2 for config, status and destroy': async ({ api }) => [
    await attempt(() => api.getConfig('pv1-1', 999999)),
    await attempt(() => api.statusCurrent('pv1-1', 999999)),
    await attempt(() => api.destroy('pv1-1', 999999, { purge: true, destroyUnreferencedDisks: true })),
  ],

  'a clone onto a taken VMID answers F4 at once': async (world) => {
    await cloned(world);
    return attempt(() => clone(world.api));
  },

  'a clone onto a storage without images is refused up front (F15)': async ({ api }) => [
    await attempt(() => api.clone('pv1-1', 9001, { newid: 199999, name: 'x', description: 'd', full: true, storage: 'local' })),
    (await api.clusterResources('vm')).some((r) => r.vmid === 199999),
  ],

  'mid-clone: a nameless locked entry, a refused write, a start that waits (F3, F7, F8)': async (world) => {
    const { api } = world;
    const cloneUpid = await clone(api);
    const entry = (await api.clusterResources('vm')).find((r) => r.vmid === 199999);
    const write = await attempt(() => api.putConfig('pv1-1', 199999, { cores: 4 }));
    const startUpid = await api.start('pv1-1', 199999);
    const exits = [await finish(world, cloneUpid), await finish(world, startUpid)];
    const after = (await api.clusterResources('vm')).find((r) => r.vmid === 199999);
    const status = await api.statusCurrent('pv1-1', 199999);
    return {
      midClone: { name: entry?.name, lock: entry?.lock, status: entry?.status },
      write,
      start: upidShape(startUpid),
      exits,
      after: { name: after?.name, lock: after?.lock, tags: after?.tags, template: after?.template },
      status: [status.status, status.qmpstatus],
    };
  },

  "the node's VM listing with full=1 tells status and qmpstatus as status/current does (SPEC 26)": async (world) => {
    const { api } = world;
    await cloned(world);
    const look = async (): Promise<unknown> => {
      const entry = (await api.nodeVms('pv1-1')).find((e) => e.vmid === 199999);
      const status = await api.statusCurrent('pv1-1', 199999);
      return { listed: [entry?.status, entry?.qmpstatus, entry?.name], own: [status.status, status.qmpstatus] };
    };
    const stopped = await look();
    await finish(world, await api.start('pv1-1', 199999));
    return { stopped, running: await look() };
  },

  'the clone copies the template, with the description given (F10, F11, F19)': async (world) => {
    await cloned(world);
    const [template, config] = [await world.api.getConfig('pv1-1', 9001), await world.api.getConfig('pv1-1', 199999)];
    return {
      copied: ['agent', 'boot', 'tags', 'meta', 'cores', 'memory'].map((k) => config[k] === template[k]),
      description: config.description,
      template: config.template,
      newMac: config.net0 !== template.net0,
    };
  },

  'tags are folded, hyphens kept, a ! refused (F9)': async (world) => {
    await cloned(world);
    const folded = await attempt(() => world.api.putConfig('pv1-1', 199999, { tags: 'Debian,Proxy_Operator;proxy-op' }));
    const tags = (await world.api.getConfig('pv1-1', 199999)).tags;
    const refused = await attempt(() => world.api.putConfig('pv1-1', 199999, { tags: 'debian;bang!' }));
    return { folded, tags, refused };
  },

  'attaching a seed on ide2 appends it to the boot order (F12, F19)': async (world) => {
    await cloned(world);
    await finish(world, await world.api.upload('pv1-1', 'proxy-seeds', 'seed.iso', iso(45056)));
    await world.api.putConfig('pv1-1', 199999, { ide2: 'proxy-seeds:iso/seed.iso,media=cdrom' });
    const config = await world.api.getConfig('pv1-1', 199999);
    return { boot: config.boot, ide2: String(config.ide2).startsWith('proxy-seeds:iso/seed.iso,media=cdrom') };
  },

  'a resize issued mid-clone waits for the clone lock, then grows the disk (lock_config, F3)': async (world) => {
    const { api } = world;
    const cloneUpid = await clone(api);
    const resizeUpid = await api.resize('pv1-1', 199999, 'scsi0', '10G');
    const exits = [await finish(world, cloneUpid), await finish(world, resizeUpid)];
    return { exits, scsi0: /size=[^,]+/.exec(String((await api.getConfig('pv1-1', 199999)).scsi0))?.[0] };
  },

  'only CD-ROMs join the boot order, a new disk never; a CD-ROM the order lacks joins when rewritten (Qemu.pm, audit 3)': async (world) => {
    const { api } = world;
    await world.plant('pv1-1', 199998, { name: 'cd', boot: 'order=scsi0', scsi0: 'local-lvm:vm-199998-disk-0,size=3G', ide2: 'none,media=cdrom' });
    await api.putConfig('pv1-1', 199998, { scsi1: 'local-lvm:4' });
    const afterDisk = (await api.getConfig('pv1-1', 199998)).boot;
    await finish(world, await api.upload('pv1-1', 'proxy-seeds', 'seed.iso', iso(4096)));
    await api.putConfig('pv1-1', 199998, { ide2: 'proxy-seeds:iso/seed.iso,media=cdrom' });
    return { afterDisk, afterCdrom: (await api.getConfig('pv1-1', 199998)).boot };
  },

  'resize grows, keeps the same size, refuses a shrink in its task (F20)': async (world) => {
    await cloned(world);
    const run = async (size: string): Promise<string> => finish(world, await world.api.resize('pv1-1', 199999, 'scsi0', size));
    const exits = [await run('10G'), await run('10G'), await run('+0G'), await run('4G')];
    return { exits, scsi0: /size=[^,]+/.exec(String((await world.api.getConfig('pv1-1', 199999)).scsi0))?.[0] };
  },

  'a running VM holds cores, and memory without memory hotplug and NUMA, for its next start (vmconfig_hotplug_pending)': async (world) => {
    const { api } = world;
    await cloned(world);
    // As text: Proxmox answers memory as a string and cores as a number, the fake keeps what was written.
    const text = (value: string | number | undefined): string | undefined => (value === undefined ? undefined : String(value));
    const keys = (entries: PendingEntry[]) =>
      entries.filter((e) => ['cores', 'memory', 'tags'].includes(e.key)).map((e) => ({ key: e.key, value: text(e.value), pending: text(e.pending) }));
    const look = async () => {
      const config = await api.getConfig('pv1-1', 199999);
      return { pending: keys(await api.pendingConfig('pv1-1', 199999)), config: [text(config.cores), text(config.memory)] };
    };
    const restart = async (): Promise<string[]> => [await finish(world, await api.stop('pv1-1', 199999)), await finish(world, await api.start('pv1-1', 199999))];
    await finish(world, await api.start('pv1-1', 199999));
    await api.putConfig('pv1-1', 199999, { cores: 4, memory: 4096, tags: 'held' });
    const held = await look();
    const restarted = await restart();
    const applied = await look();
    await finish(world, await api.stop('pv1-1', 199999));
    await api.putConfig('pv1-1', 199999, { hotplug: 'network,disk,memory', numa: 1 });
    await finish(world, await api.start('pv1-1', 199999));
    await api.putConfig('pv1-1', 199999, { cores: 2, memory: 8192 });
    const hotplugged = await look();
    await api.putConfig('pv1-1', 199999, { cores: 4 });
    const sameAgain = await look();
    const refused = await api.putConfig('pv1-1', 199999, { memory: 512 }).then(
      () => 'taken',
      (e: unknown) => (isApiError(e) ? `${e.status} ${JSON.stringify(e.errors)}` : String(e)),
    );
    const afterRefusal = await look();
    const pendingOf = (seen: { pending: { key: string; pending?: string }[] }, key: string) => seen.pending.find((e) => e.key === key)?.pending;
    expect([pendingOf(held, 'cores'), pendingOf(held, 'memory'), pendingOf(held, 'tags')], 'held while running').to.deep.equal(['4', '4096', undefined]);
    expect(held.config, 'the config answers with pending values').to.deep.equal(['4', '4096']);
    expect([pendingOf(applied, 'cores'), applied.config], 'applied by the start').to.deep.equal([undefined, ['4', '4096']]);
    expect([pendingOf(hotplugged, 'cores'), pendingOf(hotplugged, 'memory')], 'memory hotplugged, cores never').to.deep.equal(['2', undefined]);
    expect(pendingOf(sameAgain, 'cores'), 'the running value again is no change').to.equal(undefined);
    expect(refused, 'memory below what hotplug needs').to.equal(`400 {"memory":"hotplug problem - memory can't be lower than 1024 MB"}`);
    expect(pendingOf(afterRefusal, 'memory'), 'the refused value is left pending').to.equal('512');
    return { held, restarted, applied, hotplugged, sameAgain, refused, afterRefusal };
  },

  'the agent: not running, then an address on net0, then not configured (F5, F21)': async (world) => {
    const { api } = world;
    await cloned(world);
    const stopped = await attempt(() => api.agentInterfaces('pv1-1', 199999));
    await finish(world, await api.start('pv1-1', 199999));
    const interfaces = await api.agentInterfaces('pv1-1', 199999);
    const mac = /=([0-9A-F:]{17})/i.exec(String((await api.getConfig('pv1-1', 199999)).net0))?.[1]?.toLowerCase();
    await api.putConfig('pv1-1', 199999, { agent: '0' });
    const unconfigured = await attempt(() => api.agentInterfaces('pv1-1', 199999));
    // assert_agent_available asks for an agent line before it asks whether the VM runs (audit 6).
    await world.plant('pv1-1', 199998, { name: 'no-agent' });
    const stoppedWithout = await attempt(() => api.agentInterfaces('pv1-1', 199998));
    return {
      stoppedWithout,
      stopped,
      names: interfaces.map((i) => i.name),
      onNet0: interfaces.find((i) => i.name === 'ens18')?.['hardware-address'] === mac,
      unconfigured,
    };
  },

  'destroy is refused while running, then stop and destroy remove the VM': async (world) => {
    const { api } = world;
    await cloned(world);
    await finish(world, await api.start('pv1-1', 199999));
    const refused = await attempt(() => api.destroy('pv1-1', 199999, { purge: true, destroyUnreferencedDisks: true }));
    const exits = [await finish(world, await api.stop('pv1-1', 199999))];
    exits.push(await finish(world, await api.destroy('pv1-1', 199999, { purge: true, destroyUnreferencedDisks: true })));
    return { refused, exits, gone: await attempt(() => api.getConfig('pv1-1', 199999)) };
  },

  'protection (audit 7.1, SPEC 28): a clone inherits it; destroy and a disk removal are refused with check_protection\'s text; delete=protection clears it': async (world) => {
    const { api } = world;
    await api.putConfig('pv1-1', 9001, { protection: 1 });
    await cloned(world);
    const inherited = (await api.getConfig('pv1-1', 199999)).protection;
    // $early_checks: protection before the running refusal.
    await finish(world, await api.start('pv1-1', 199999));
    const destroyRunning = await attempt(() => api.destroy('pv1-1', 199999, { purge: true, destroyUnreferencedDisks: true }));
    await finish(world, await api.stop('pv1-1', 199999));
    const destroy = await attempt(() => api.destroy('pv1-1', 199999, { purge: true, destroyUnreferencedDisks: true }));
    const removeDisk = await attempt(() => api.putConfig('pv1-1', 199999, { delete: 'scsi0', cores: 4 }));
    const coresAfterRefusal = (await api.getConfig('pv1-1', 199999)).cores;
    await api.putConfig('pv1-1', 199999, { delete: 'protection' });
    const cleared = (await api.getConfig('pv1-1', 199999)).protection ?? 'absent';
    const exit = await finish(world, await api.destroy('pv1-1', 199999, { purge: true, destroyUnreferencedDisks: true }));
    // AbstractConfig.pm check_protection, as destroy_vm and $update_vm_api call it (plain dies: 500).
    const refusal = (outcome: Outcome): unknown => ('error' in outcome ? [outcome.error.status, outcome.error.message] : outcome);
    expect([inherited, refusal(destroyRunning), refusal(destroy), refusal(removeDisk), cleared]).to.deep.equal([
      1,
      [500, "can't remove VM 199999 - protection mode enabled"],
      [500, "can't remove VM 199999 - protection mode enabled"],
      [500, "can't remove drive 'scsi0' - protection mode enabled"],
      'absent',
    ]);
    return { inherited, destroyRunning, destroy, removeDisk, coresAfterRefusal, cleared, exit };
  },

  'a volume delete is a task that ends OK twice; 403 without Datastore.Allocate (F13)': async (world) => {
    const { api } = world;
    await finish(world, await api.upload('pv1-1', 'proxy-seeds', 'gone.iso', iso(4096)));
    const first = await api.deleteVolume('pv1-1', 'proxy-seeds', 'proxy-seeds:iso/gone.iso');
    const exits = [await finish(world, first)];
    const again = await api.deleteVolume('pv1-1', 'proxy-seeds', 'proxy-seeds:iso/gone.iso');
    exits.push(await finish(world, again));
    const log = (await api.taskLog('pv1-1', again)).map((l) => l.t);
    await world.denyAllocate('local');
    const forbidden = await attempt(() => api.deleteVolume('pv1-1', 'local', 'local:iso/x.iso'));
    return { tasks: [upidShape(first), upidShape(again)], exits, log, left: await api.storageContent('pv1-1', 'proxy-seeds', 'iso'), forbidden };
  },
};

const CLONE_CHECKS: Record<string, Scenario> = {
  "clone_vm's checks before its fork: an unknown target node, a missing storage, linked+storage, target from local storage (audit 2, SPEC 23)": async ({ api }) => {
    const base = { newid: 199999, name: 'x', description: 'd', full: true };
    return [
      await attempt(() => api.clone('pv1-1', 9001, { ...base, target: 'pv9-9' })),
      await attempt(() => api.clone('pv1-1', 9001, { ...base, storage: 'nope' })),
      await attempt(() => api.clone('pv1-1', 9001, { ...base, full: false, storage: 'local-lvm' })),
      await attempt(() => api.clone('pv1-1', 9001, { ...base, target: 'pv1-2' })),
      await attempt(() => api.clone('pv1-1', 9200, { ...base, target: 'pv1-2', storage: 'local-lvm' })),
      (await api.clusterResources('vm')).some((r) => r.vmid === 199999),
    ];
  },

  'a clone onto a VMID held on another node: a UPID, a task failing at the rename, the other VM untouched (audit 2b)': async (world) => {
    const { api } = world;
    await world.plant('pv1-2', 199999, { name: 'theirs' });
    const upid = await clone(api);
    const exit = await finish(world, upid);
    const entries = (await api.clusterResources('vm')).filter((r) => r.vmid === 199999).map((r) => ({ node: r.node, name: r.name }));
    return { task: upidShape(upid), exit, entries, here: await attempt(() => api.getConfig('pv1-1', 199999)) };
  },

  "a clone whose task fails for another reason leaves no VM behind (clone_vm's unlink $conffile)": async (world) => {
    const { api } = world;
    await world.failNextTask('qmclone', 'clone failed: lvcreate: got lock timeout - aborting command');
    const exit = await finish(world, await clone(api));
    return {
      exit,
      config: await attempt(() => api.getConfig('pv1-1', 199999)),
      listed: (await api.clusterResources('vm')).some((r) => r.vmid === 199999),
      again: await finish(world, await clone(api)),
    };
  },

  'the shared template clones to another node with target; the VM moves there when its task ends (SPEC 23)': async (world) => {
    const { api } = world;
    const upid = await api.clone('pv1-1', 9200, { newid: 199999, name: 'moved', description: 'd', full: true, target: 'pv1-2' });
    const during = (await api.clusterResources('vm')).find((r) => r.vmid === 199999)?.node;
    const exit = await finish(world, upid);
    const after = (await api.clusterResources('vm')).find((r) => r.vmid === 199999);
    const scsi0 = String((await api.getConfig('pv1-2', 199999)).scsi0).split(',')[0];
    const shared = (await api.storages('pv1-2')).find((st) => st.storage === 'vm-shared')?.shared;
    return { task: upidShape(upid), during, exit, after: [after?.node, after?.name], scsi0, shared };
  },

  'without Datastore.AllocateSpace a clone answers 403 and a resize task ends with the code first (audit 4c)': async (world) => {
    const { api } = world;
    await cloned(world);
    await world.denyAllocateSpace('local-lvm');
    const refused = await attempt(() => clone(api, 199998));
    const resized = await finish(world, await api.resize('pv1-1', 199999, 'scsi0', '10G'));
    return { refused, resized, scsi0: /size=[^,]+/.exec(String((await api.getConfig('pv1-1', 199999)).scsi0))?.[0] };
  },

  "resize, start and stop check inside their tasks: a missing VM, a missing disk, a template, a stopped VM's lock (audit 4b, 5)": async (world) => {
    const { api } = world;
    // _do_vm_stop leaves a VM that is not running alone: no config load, no lock check.
    await world.plant('pv1-1', 199998, { name: 'locked', lock: 'backup' });
    return [
      await finish(world, await api.resize('pv1-1', 999999, 'scsi0', '10G')),
      await finish(world, await api.resize('pv1-1', 9001, 'scsi9', '10G')),
      await finish(world, await api.start('pv1-1', 999999)),
      await finish(world, await api.stop('pv1-1', 999999)),
      await finish(world, await api.start('pv1-1', 9001)),
      await finish(world, await api.stop('pv1-1', 199998)),
    ];
  },

  'a start resumes a hibernated VM: its suspended lock is no obstacle and is gone after (QemuServer vm_start)': async (world) => {
    const { api } = world;
    await world.plant('pv1-1', 199998, { name: 'hibernated', lock: 'suspended', vmstate: 'local-lvm:vm-199998-state-suspend-2026-09-19' });
    const upid = await api.start('pv1-1', 199998);
    const exit = await finish(world, upid);
    const config = await api.getConfig('pv1-1', 199998);
    const status = await api.statusCurrent('pv1-1', 199998);
    return { exit, log: (await api.taskLog('pv1-1', upid)).map((l) => l.t), lock: config.lock, vmstate: config.vmstate, status: status.status };
  },
};

const STORAGE_CFG: Record<string, Scenario> = {
  "a disabled storage: refused before a clone's task, or failing it for the template's own disks (SPEC 28)": async (world) => {
    const { api } = world;
    await world.setStorage('local-lvm', { disable: true });
    const refused = await attempt(() => api.clone('pv1-1', 9001, { newid: 199998, name: 'x', description: 'd', full: true, storage: 'local-lvm' }));
    const exit = await finish(world, await clone(api));
    const listed = (await api.storages('pv1-1')).map((s) => [s.storage, s.enabled, s.active]);
    return { refused, exit, left: (await api.clusterResources('vm')).some((r) => r.vmid === 199999), listed };
  },
  "a template's own disk storage disabled fails the clone's task even with `storage` elsewhere (activate_volumes, SPEC 28)": async (world) => {
    const { api } = world;
    await world.setStorage('local-lvm', { disable: true });
    const upid = await api.clone('pv1-1', 9001, { newid: 199999, name: 'x', description: 'd', full: true, storage: 'vm-shared' });
    return { exit: await finish(world, upid), left: (await api.clusterResources('vm')).some((r) => r.vmid === 199999) };
  },
  'a storage restricted to other nodes: clone, upload and content listing refused, a volume delete failing in its task (SPEC 28)': async (world) => {
    const { api } = world;
    await world.setStorage('vm-shared', { nodes: ['pv1-1'] });
    await world.setStorage('proxy-seeds', { nodes: ['pv1-1'] });
    return {
      cross: await attempt(() => api.clone('pv1-1', 9200, { newid: 199999, name: 'x', description: 'd', full: true, storage: 'vm-shared', target: 'pv1-2' })),
      upload: await attempt(() => api.upload('pv1-2', 'proxy-seeds', 'seed.iso', iso(2048))),
      content: await attempt(() => api.storageContent('pv1-2', 'proxy-seeds', 'iso')),
      deleted: await finish(world, await api.deleteVolume('pv1-2', 'proxy-seeds', 'proxy-seeds:iso/none.iso')),
      listed: (await api.storages('pv1-2')).map((s) => [s.storage, s.enabled, s.active]),
      here: await finish(world, await api.upload('pv1-1', 'proxy-seeds', 'seed.iso', iso(2048))),
    };
  },
};

const STATD_LAG: Record<string, Scenario> = {
  "pvestatd's lag: a finished clone stays nameless and unknown, a start shows at the next cycle (audit 7)": async (world) => {
    const { api } = world;
    const entry = async () => {
      const r = (await api.clusterResources('vm')).find((x) => x.vmid === 199999);
      return { name: r?.name, status: r?.status, lock: r?.lock, tags: r?.tags };
    };
    await cloned(world);
    const afterClone = await entry();
    world.statdCycle();
    const nextCycle = await entry();
    await finish(world, await api.start('pv1-1', 199999));
    const afterStart = await entry();
    world.statdCycle();
    return { afterClone, nextCycle, afterStart, started: await entry() };
  },
};

const resourceEntry = async (api: ProxmoxApi, vmid = 199999) => {
  const r = (await api.clusterResources('vm')).find((x) => x.vmid === vmid);
  return r && { name: r.name, status: r.status, lock: r.lock, tags: r.tags, maxdisk: r.maxdisk };
};

const STATD_REUSE: Record<string, Scenario> = {
  "a reused VMID shows the destroyed VM's name and status until pvestatd samples the new VM (SPEC 28, audit 3.4)": async (world) => {
    const { api } = world;
    await cloned(world);
    world.statdCycle();
    const before = await resourceEntry(api);
    await finish(world, await api.destroy('pv1-1', 199999, { purge: true, destroyUnreferencedDisks: true }));
    const destroyed = await resourceEntry(api);
    await finish(world, await api.clone('pv1-1', 9001, { newid: 199999, name: 'proxy-newaaaaaaaaaaaa', description: 'managed-by: pve-provisioner\nuid: u-2', full: true }));
    const reused = await resourceEntry(api);
    world.statdCycle();
    return { before, destroyed, reused, sampled: await resourceEntry(api) };
  },
};

// A 16 s clone from 3 s into a cycle: the cycle at 10 s falls in its temporary config (3 to 11 s), none after it until 20 s.
const STATD_CLONE_SPANS_CYCLE: Record<string, Scenario> = {
  'a clone sampled in its temporary config is VM <vmid>, stopped; after its task unlocked with that name, its own at the next cycle (SPEC 28, audit 3.3)': async (world) => {
    const { api } = world;
    const upid = await clone(api);
    world.statdCycle();
    const midClone = await resourceEntry(api);
    await finish(world, upid);
    const afterClone = await resourceEntry(api);
    world.statdCycle();
    return { midClone, afterClone, sampled: await resourceEntry(api) };
  },
};

const TWO_NODES: Record<string, Scenario> = {
  'the cluster status marks local the node the request entered, where an upload for the other node runs (SPEC 28)': async ({ api }) => {
    const status = await api.clusterStatus();
    const upid = await api.upload('pv1-2', 'proxy-seeds', 'entered.iso', iso(10));
    return { status, local: status.filter((e) => e.local === 1).map((e) => e.name), upload: upidShape(upid) };
  },

  'an upload needs .iso, overwrites, and runs on the node that received it (F12, SPEC 16)': async (world) => {
    const { api } = world;
    const refused = await attempt(() => api.upload('pv1-2', 'proxy-seeds', 'seed.txt', iso(10)));
    const first = await api.upload('pv1-2', 'proxy-seeds', 'seed.iso', iso(2048));
    await finish(world, first);
    const second = await api.upload('pv1-2', 'proxy-seeds', 'seed.iso', iso(4096));
    await finish(world, second);
    const volumes = (await api.storageContent('pv1-2', 'proxy-seeds', 'iso')).map((v) => [v.volid, v.size]);
    return { refused, tasks: [upidShape(first), upidShape(second)], volumes };
  },
  'a space or ! inside tags is refused, not split into two tags (F9)': async (world) => {
    await cloned(world);
    return [
      await attempt(() => world.api.putConfig('pv1-1', 199999, { tags: 'proxy operator' })),
      await attempt(() => world.api.putConfig('pv1-1', 199999, { tags: 'proxy;oper!ator' })),
    ];
  },
  'a volume delete task has the storage as its id (Content.pm)': async (world) => {
    const upid = await world.api.deleteVolume('pv1-1', 'proxy-seeds', 'proxy-seeds:iso/none.iso');
    return String(upid).split(':')[6];
  },
  'asking the wrong node about a task: its status is 400 no such task, its log one line dump_logfile gives for a missing file': async (world) => {
    const upid = await world.api.upload('pv1-1', 'proxy-seeds', 'a.iso', iso(10));
    return [await attempt(() => world.api.taskStatus('pv1-2', upid)), await attempt(() => world.api.taskLog('pv1-2', upid))];
  },
};

function suite(nodes: string[], scenarios: Record<string, Scenario>, options: WorldOptions = {}): void {
  for (const [title, scenario] of Object.entries(scenarios)) {
    it(title, async () => {
      const transcripts: unknown[] = [];
      for (const make of [simWorld, fakeWorld]) {
        const world = await make(nodes, options);
        try {
          transcripts.push(await scenario(world));
        } finally {
          await world.close();
        }
      }
      expect(transcripts[0], 'simulator (actual) against fake (expected)').to.deep.equal(transcripts[1]);
    });
  }
}

describe('contract: simulator over HTTP and the in-memory fake give the same answers (SPEC 8)', () => {
  describe('one node', () => suite(['pv1-1'], ONE_NODE));
  describe('two nodes', () => suite(['pv1-1', 'pv1-2'], TWO_NODES));
  describe('clone and task checks (SPEC 23)', () => suite(['pv1-1', 'pv1-2'], CLONE_CHECKS));
  describe('storages disabled or restricted to some nodes (SPEC 28)', () => suite(['pv1-1', 'pv1-2'], STORAGE_CFG));
  describe("pvestatd's cycle (SPEC 23)", () => suite(['pv1-1'], STATD_LAG, { statdLag: true }));
  describe("pvestatd's cycle: a destroyed VM's sample at its VMID (SPEC 28)", () => suite(['pv1-1'], STATD_REUSE, { statdLag: true }));
  describe("pvestatd's cycle: a clone longer than a cycle (SPEC 28)", () => suite(['pv1-1'], STATD_CLONE_SPANS_CYCLE, { statdLag: true, cloneSeconds: 16 }));
});
