// F22: API tokens are checked; SPEC 8: /_sim/state, /_sim/requests (no
// secrets), /_sim/reset and planting VMs for tests.
import { expect } from 'chai';
import { TOKEN, captured, shape, startTestSim, type TestSim } from './sim-helpers.js';

interface StateView {
  vms: { vmid: number; node: string; status: string; config: Record<string, unknown> }[];
  nodes: { node: string; storages: { storage: string; volumes: { volid: string }[] }[] }[];
}

describe('simulator: tokens and the /_sim/ endpoints (F22, SPEC 8)', () => {
  let sim: TestSim;
  beforeEach(async () => {
    sim = await startTestSim();
  });
  afterEach(async () => {
    await sim.close();
  });

  it('answers no credentials with the captured 401 No ticket', async () => {
    expect(shape(await sim.api('GET', '/version', {}, {}))).to.deep.equal(captured('err_no_ticket'));
  });

  it('answers a wrong secret and an unknown token id with the captured 401 Authentication failed!', async () => {
    const wrongSecret = await sim.api('GET', '/version', {}, { Authorization: 'PVEAPIToken=root@pam!provisioner=wrong' });
    const unknownId = await sim.api('GET', '/version', {}, { Authorization: TOKEN.replace('provisioner', 'other').replace(/^/, 'PVEAPIToken=') });
    expect(shape(wrongSecret)).to.deep.equal(captured('err_auth_failed'));
    expect(shape(unknownId)).to.deep.equal(captured('err_auth_failed'));
  });

  it('checks the token before the path, as pveproxy authenticates first', async () => {
    expect((await sim.api('GET', '/no/such/path', {}, {})).status).to.equal(401);
  });

  it('records method, path and parameters, never the token', async () => {
    await sim.api('PUT', '/nodes/pv1-1/qemu/9001/config', { description: 'hello' });
    await sim.api('GET', '/version', {}, { Authorization: 'PVEAPIToken=root@pam!provisioner=wrong-secret-value' });
    const { requests } = (await sim.control('GET', 'requests')) as { requests: { method: string; path: string; params: Record<string, string>; status: number }[] };
    expect(requests).to.have.length(2);
    expect(requests[0]).to.deep.include({ method: 'PUT', path: '/api2/json/nodes/pv1-1/qemu/9001/config', params: { description: 'hello' }, status: 200 });
    expect(requests[1]).to.deep.include({ method: 'GET', status: 401 });
    const text = JSON.stringify(requests);
    expect(text).not.to.include(TOKEN.split('=')[1]);
    expect(text).not.to.include('wrong-secret-value');
    expect(text).not.to.include('PVEAPIToken');
  });

  it('shows every VM with its config and every volume by node and storage', async () => {
    const state = (await sim.control('GET', 'state')) as StateView;
    // SPEC 23: one VMID per VM in the cluster; node i holds 9001+i and 9100+i, the first node 9200 on vm-shared.
    const templates = state.vms.filter((vm) => vm.vmid >= 9000).map((vm) => [vm.vmid, vm.node, vm.config.name]);
    expect(templates).to.deep.equal([
      [9001, 'pv1-1', 'debian-13-template'],
      [9100, 'pv1-1', 'ubuntu-24.04-template'],
      [9002, 'pv1-2', 'debian-13-template'],
      [9101, 'pv1-2', 'ubuntu-24.04-template'],
      [9200, 'pv1-1', 'debian-13-shared'],
    ]);
    expect(new Set(state.vms.map((vm) => vm.vmid)).size).to.equal(state.vms.length);
    expect(state.vms.find((vm) => vm.vmid === 9001)?.config).to.include({ name: 'debian-13-template', template: 1, boot: 'order=scsi0' });
    expect(String(state.vms.find((vm) => vm.vmid === 9200)?.config.scsi0)).to.match(/^vm-shared:base-9200-disk-1,/);
    expect(state.vms.filter((vm) => vm.vmid < 9000)).to.have.length(2);
    const lvm = state.nodes[0]?.storages.find((s) => s.storage === 'local-lvm');
    expect(lvm?.volumes.map((v) => v.volid)).to.include('local-lvm:base-9001-disk-1');
  });

  it('plants and changes VMs, and reset puts the starting state back', async () => {
    await sim.control('POST', 'vms', { node: 'pv1-2', vmid: 4242, config: { name: 'planted', agent: '1' }, status: 'running', paused: true });
    const status = await sim.data<{ status: string; qmpstatus: string }>('GET', '/nodes/pv1-2/qemu/4242/status/current');
    expect(status).to.include({ status: 'running', qmpstatus: 'paused' });
    await sim.faults({ latencyMs: 1 });
    await sim.control('POST', 'reset');
    const missing = await sim.api('GET', '/nodes/pv1-2/qemu/4242/config');
    expect(missing.reason).to.equal("Configuration file 'nodes/pv1-2/qemu-server/4242.conf' does not exist");
    expect(await sim.control('GET', 'faults')).to.deep.equal({});
    const { requests } = (await sim.control('GET', 'requests')) as { requests: unknown[] };
    expect(requests).to.have.length(1);
  });

  it("plants what a guest's agent lists (docker0, a second NIC), and null puts the simulator's lo and ens18 back (SPEC 33)", async () => {
    const docker = [{ name: 'docker0', 'hardware-address': '02:42:7a:1c:3e:90', 'ip-addresses': [{ 'ip-address': '172.17.0.1', 'ip-address-type': 'ipv4', prefix: 16 }] }];
    await sim.control('POST', 'vms', { node: 'pv1-1', vmid: 4243, config: { agent: '1' }, status: 'running', startedSecondsAgo: 3600, guestInterfaces: docker });
    const path = '/nodes/pv1-1/qemu/4243/agent/network-get-interfaces';
    expect(await sim.data('GET', path)).to.deep.equal({ result: docker });
    await sim.control('POST', 'vms', { node: 'pv1-1', vmid: 4243, guestInterfaces: null });
    expect((await sim.data<{ result: { name: string }[] }>('GET', path)).result.map((i) => i.name)).to.deep.equal(['lo', 'ens18']);
    const refused = (await sim.control('POST', 'vms', { node: 'pv1-1', vmid: 4243, guestInterfaces: [{ mac: 'x' }] })) as { problems: string[] };
    expect(refused.problems).to.deep.equal(['guestInterfaces: must be a list of interfaces, each an object with a name, or null']);
  });

  it('refuses a malformed fault set with every problem named', async () => {
    const answer = (await sim.control('POST', 'faults', { errors: [{ path: '(', rate: 2 }], sometimes: true })) as { problems: string[] };
    expect(answer.problems).to.have.members([
      'sometimes: unknown fault (known: errors, drops, latencyMs, slowTasks, failTasks, denyAllocate, denyAllocateSpace, offlineNodes, denyPrivileges)',
      'errors[0].path: must be a regular expression',
      'errors[0].rate: must be a number from 0 to 1',
    ]);
  });
});
