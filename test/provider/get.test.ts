// SPEC 12 (Get, in order), SPEC 10 (states and address), corrections 1, 6, 9.
import { expect } from 'chai';
import { PermanentError, TransientError } from '../../src/errors.js';
import { vmidForUid } from '../../src/provider/vmid.js';
import { fakeErrors } from '../fakes/fake-errors.js';
import { addOurVm, depsWith, harness, RANGE } from './harness.js';
import { getVm } from '../../src/provider/get.js';
import { silentLogger } from '../../src/log.js';
import type { CallOptions, ProxmoxApi } from '../../src/proxmox/api.js';
import { fixtureData } from '../support/fixtures.js';
import type { AgentInterface } from '../../src/proxmox/api.js';
import { rejection } from '../support/rejection.js';

const NAME = 'proxy-a';
const UID = '3f1c2a9e-6b7d-4e58-9a10-2c4d5e6f7a80';
const VMID = vmidForUid(UID, RANGE);
const ref = { name: NAME, uid: UID };

describe('Get (SPEC 12)', () => {
  it('row 1: no entry at our VMID is NotFound after one call', async () => {
    const h = harness();
    expect((await h.provider.get(ref, h.ctx)).state).to.equal('NotFound');
    expect(h.pve.methods()).to.deep.equal(['clusterResources']);
  });

  it('row 1: a mid-clone entry with no name (F8) is Transient before any config read', async () => {
    const h = harness();
    h.pve.addVm({ vmid: VMID, config: { lock: 'clone' }, cloning: true });
    expect(await rejection(h.provider.get(ref, h.ctx))).to.be.instanceOf(TransientError);
    expect(h.pve.methods()).to.deep.equal(['clusterResources']);
  });

  it('row 1: a lock on a named entry is Transient before the name is read', async () => {
    const h = harness();
    addOurVm(h.pve, 'someone-else', 'other', { vmid: VMID, config: { lock: 'backup' } });
    expect(await rejection(h.provider.get(ref, h.ctx))).to.be.instanceOf(TransientError);
    expect(h.pve.methods()).to.deep.equal(['clusterResources']);
  });

  it('row 1: status unknown is Transient', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID);
    h.pve.on('clusterResources', () => {
      h.pve.vm(VMID)!.cloning = true;
    });
    expect(await rejection(h.provider.get(ref, h.ctx))).to.be.instanceOf(TransientError);
  });

  it('row 2: a lock in the config (not suspended) is Transient', async () => {
    const h = harness();
    const vm = addOurVm(h.pve, NAME, UID, { status: 'running' });
    h.pve.on('getConfig', () => void (vm.config.lock = 'migrate'));
    expect(await rejection(h.provider.get(ref, h.ctx))).to.be.instanceOf(TransientError);
    expect(h.pve.methods()).to.deep.equal(['clusterResources', 'getConfig']);
  });

  it('row 2: another name in the config, no mark, or another uid is NotFound', async () => {
    for (const change of [{ name: 'renamed' }, { description: 'a VM someone made by hand' }, { description: 'managed-by: pve-provisioner\nuid: other-uid' }]) {
      const h = harness();
      const vm = addOurVm(h.pve, NAME, UID, { status: 'running' });
      h.pve.on('getConfig', () => void Object.assign(vm.config, change));
      expect((await h.provider.get(ref, h.ctx)).state, JSON.stringify(change)).to.equal('NotFound');
      expect(h.pve.methods()).to.deep.equal(['clusterResources', 'getConfig']);
    }
  });

  it('row 2: a suspended (hibernated) VM of ours is Stopped, without reading status or agent', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { config: { lock: 'suspended' } });
    const seen = await h.provider.get(ref, h.ctx);
    expect(seen.state).to.equal('Stopped');
    expect(h.pve.methods()).to.deep.equal(['clusterResources', 'getConfig']);
  });

  it('row 2: the suspended rule comes after the mark check: a hibernated VM with another uid is NotFound', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, 'another-uid', { vmid: VMID, config: { lock: 'suspended' } });
    expect((await h.provider.get(ref, h.ctx)).state).to.equal('NotFound');
  });

  it('row 3: stopped, or paused while resources says running (F14), is Stopped', async () => {
    for (const [status, qmpstatus] of [['stopped', 'stopped'], ['running', 'paused']] as const) {
      const h = harness();
      addOurVm(h.pve, NAME, UID, { status, qmpstatus });
      const seen = await h.provider.get(ref, h.ctx);
      expect(seen.state, qmpstatus).to.equal('Stopped');
      expect(h.pve.methods()).to.deep.equal(['clusterResources', 'getConfig', 'statusCurrent']);
    }
  });

  it('row 4: a running VM with an address is Running after exactly four calls', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { status: 'running', agent: { interfaces: fixtureData<{ result: AgentInterface[] }>('agent_interfaces').result } });
    const seen = await h.provider.get(ref, h.ctx);
    expect(seen).to.deep.include({ state: 'Running', address: '192.168.0.150', vmid: VMID, node: 'pv1-1', uid: UID, providerId: `vms/${VMID}/${NAME}` });
    expect(seen.createdAt).to.equal('2026-11-30T09:00:00.000Z');
    expect(h.pve.methods()).to.deep.equal(['clusterResources', 'getConfig', 'statusCurrent', 'agentInterfaces']);
  });

  it("every call of a Get carries the job's logger, so each Proxmox call's log line names the job (SPEC 9)", async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { status: 'running', agent: { interfaces: fixtureData<{ result: AgentInterface[] }>('agent_interfaces').result } });
    const jobLogger = silentLogger();
    const loggers: [string, unknown][] = [];
    // The fake's calls, each with the logger its CallOptions (the last argument) carry.
    const api = new Proxy(h.pve, {
      get(target, key, receiver) {
        const value: unknown = Reflect.get(target, key, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          loggers.push([String(key), (args.at(-1) as CallOptions | undefined)?.logger]);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as ProxmoxApi;
    const seen = await getVm(depsWith(h, { api }), ref, { ...h.ctx, logger: jobLogger });
    expect(seen.state).to.equal('Running');
    expect(loggers.map(([method]) => method)).to.deep.equal(['clusterResources', 'getConfig', 'statusCurrent', 'agentInterfaces']);
    for (const [method, logger] of loggers) expect(logger, method).to.equal(jobLogger);
  });

  it('row 4: the three agent messages (F5) and anything else', async () => {
    const cases: [Error, string][] = [
      [fakeErrors.agentNotRunning(), 'Provisioning'],
      [fakeErrors.agentNotConfigured(), 'Stopped'],
      [fakeErrors.vmNotRunning(VMID), 'Transient'],
      [fakeErrors.forbiddenVolumeDelete('local'), 'Transient'],
      [fakeErrors.configMissing('pv1-1', VMID), 'Transient'],
    ];
    for (const [err, want] of cases) {
      const h = harness();
      addOurVm(h.pve, NAME, UID, { status: 'running' });
      h.pve.failNext('agentInterfaces', err);
      if (want === 'Transient') {
        const got = await rejection(h.provider.get(ref, h.ctx));
        expect(got, err.message).to.be.instanceOf(TransientError);
      } else {
        expect((await h.provider.get(ref, h.ctx)).state, err.message).to.equal(want);
      }
    }
  });

  it('row 4: the fake agent itself answers each F5 message (assert_agent_available, audit 6)', async () => {
    const h = harness();
    const vm = addOurVm(h.pve, NAME, UID, { status: 'running', agent: { callsBeforeUp: 1 } });
    expect((await h.provider.get(ref, h.ctx)).state).to.equal('Provisioning');
    expect((await h.provider.get(ref, h.ctx)).state).to.equal('Running');
    // `agent: 0` is still a defined agent line: Proxmox pings and answers "not running".
    vm.config.agent = '0';
    expect((await h.provider.get(ref, h.ctx)).state).to.equal('Provisioning');
    // No agent line at all: "No QEMU guest agent configured".
    delete vm.config.agent;
    expect((await h.provider.get(ref, h.ctx)).state).to.equal('Stopped');
  });

  it('a running VM whose agent has no usable address yet is Provisioning', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, {
      status: 'running',
      agent: { interfaces: [{ name: 'ens18', 'ip-addresses': [{ 'ip-address': 'fe80::1', 'ip-address-type': 'ipv6' }] }] },
    });
    expect((await h.provider.get(ref, h.ctx)).state).to.equal('Provisioning');
  });

  it('a VM with our name but no mark at our VMID is NotFound', async () => {
    const h = harness();
    h.pve.addVm({ vmid: VMID, config: { name: NAME, description: 'hand made' } });
    expect((await h.provider.get(ref, h.ctx)).state).to.equal('NotFound');
  });

  it('another VM carrying our name elsewhere is ignored', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, 'someone-elses-uid', { vmid: 100, status: 'running' });
    expect((await h.provider.get(ref, h.ctx)).state).to.equal('NotFound');
    addOurVm(h.pve, NAME, UID, { status: 'running' });
    const seen = await h.provider.get(ref, h.ctx);
    expect(seen).to.deep.include({ state: 'Running', vmid: VMID });
  });

  it('finds our VM one VMID further when a foreign VM holds the uid\'s own (SPEC 11 probing)', async () => {
    const h = harness();
    h.pve.addVm({ vmid: VMID, config: { name: 'foreign' } });
    const next = VMID === RANGE.max ? RANGE.min : VMID + 1;
    addOurVm(h.pve, NAME, UID, { vmid: next, status: 'running' });
    expect(await h.provider.get(ref, h.ctx)).to.deep.include({ state: 'Running', vmid: next });
  });

  it('a failing resources call keeps its class', async () => {
    const h = harness();
    h.pve.failNext('clusterResources', fakeErrors.authFailed());
    expect(await rejection(h.provider.get(ref, h.ctx))).to.be.instanceOf(PermanentError);
    h.pve.failNext('clusterResources', fakeErrors.noRouteToHost());
    expect(await rejection(h.provider.get(ref, h.ctx))).to.be.instanceOf(TransientError);
  });

  it('a VM that vanishes between resources and config is NotFound', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID);
    h.pve.on('getConfig', () => void h.pve.vms.delete(VMID));
    expect((await h.provider.get(ref, h.ctx)).state).to.equal('NotFound');
  });
});
