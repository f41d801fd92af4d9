// SPEC 33: the token's privileges as GET /access/permissions answers them
// (pve-access-control API2/AccessControl.pm permissions), the
// denyPrivileges fault that takes some away, and the schema's permission
// checks enforced on the calls (RPCEnvironment.pm exec_api2_perm_check),
// before the parameters are checked, as pveproxy does (HTTPServer.pm 174).
import { expect } from 'chai';
import { ALL_PRIVILEGES } from '../../src/sim/privileges.js';
import { startTestSim, type TestSim } from './sim-helpers.js';

const Q = '/nodes/pv1-1/qemu';

type Perms = Record<string, Record<string, number>>;

describe('simulator: the token\'s privileges and the permission checks (SPEC 33)', () => {
  let sim: TestSim;
  beforeEach(async () => {
    sim = await startTestSim();
  });
  afterEach(async () => {
    await sim.close();
  });

  const reason = async (method: string, path: string, params?: Record<string, string | number>): Promise<string> => {
    const answer = await sim.api(method, path, params);
    return `${answer.status} ${answer.reason}`;
  };

  it('answers every privilege at a path, each with propagate 1, as root@pam\'s token holds them (F17)', async () => {
    const perms = await sim.data<Perms>('GET', '/access/permissions', { path: '/vms/9001' });
    expect(Object.keys(perms)).to.deep.equal(['/vms/9001']);
    expect(Object.keys(perms['/vms/9001'] ?? {}).sort()).to.deep.equal([...ALL_PRIVILEGES].sort());
    expect(Object.values(perms['/vms/9001'] ?? {}).every((v) => v === 1)).to.equal(true);
  });

  it('without a path answers the top-level tree, and leaves out what denyPrivileges takes away there and below', async () => {
    await sim.faults({ denyPrivileges: [{ privilege: 'VM.Clone', path: '/vms/9001' }, { privilege: 'Datastore.Allocate' }] });
    const tree = await sim.data<Perms>('GET', '/access/permissions');
    expect(Object.keys(tree).sort()).to.deep.equal(['/', '/access', '/access/groups', '/nodes', '/pool', '/sdn', '/storage', '/vms']);
    expect(tree['/storage']).to.not.have.property('Datastore.Allocate');
    expect(tree['/vms']).to.have.property('VM.Clone');
    const at = await sim.data<Perms>('GET', '/access/permissions', { path: '/vms/9001/x' });
    expect(at['/vms/9001/x']).to.not.have.property('VM.Clone');
    expect((await sim.data<Perms>('GET', '/access/permissions', { path: '/vms/90011' }))['/vms/90011']).to.have.property('VM.Clone');
  });

  it('refuses a call whose schema check names a denied privilege with F13\'s 403, before its parameters are checked', async () => {
    await sim.faults({ denyPrivileges: [{ privilege: 'VM.Clone', path: '/vms/9001' }] });
    // `bogus` would be a 400; the permission check comes first.
    expect(await reason('POST', `${Q}/9001/clone`, { newid: 199999, bogus: 1 })).to.equal('403 Permission check failed (/vms/9001, VM.Clone)');
    expect((await sim.api('GET', `${Q}/199999/config`)).status).to.equal(500);
    expect(await reason('GET', `${Q}/9001/config`)).to.equal('200 OK');
  });

  it('names every privilege of an `any` check, and the bare text when an `or` fails', async () => {
    await sim.faults({ denyPrivileges: [{ privilege: 'VM.GuestAgent.Audit' }, { privilege: 'VM.GuestAgent.Unrestricted' }, { privilege: 'VM.Allocate', path: '/vms/199999' }] });
    expect(await reason('GET', `${Q}/9001/agent/network-get-interfaces`)).to.equal('403 Permission check failed (/vms/9001, VM.GuestAgent.Audit|VM.GuestAgent.Unrestricted)');
    expect(await reason('POST', `${Q}/9001/clone`, { newid: 199999, name: 'x' })).to.equal('403 Permission check failed');
  });

  it('takes Datastore.Allocate away from a volume delete as denyAllocate does (its schema says `user: all`, the handler checks)', async () => {
    await sim.faults({ denyPrivileges: [{ privilege: 'Datastore.Allocate', path: '/storage/proxy-seeds' }] });
    const answer = await sim.api('DELETE', `/nodes/pv1-1/storage/proxy-seeds/content/${encodeURIComponent('proxy-seeds:iso/x.iso')}`);
    expect(`${answer.status} ${answer.reason}`).to.equal('403 Permission check failed (/storage/proxy-seeds, Datastore.Allocate)');
  });

  it('refuses a bad denyPrivileges entry naming the field', async () => {
    const answer = (await sim.control('POST', 'faults', { denyPrivileges: [{ path: 'vms' }] })) as { problems?: string[] };
    expect(answer.problems).to.include.members(['denyPrivileges[0].privilege: must be a privilege name such as VM.Clone', 'denyPrivileges[0].path: must be an ACL path starting with /']);
  });
});
