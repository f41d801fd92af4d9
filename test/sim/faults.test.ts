// Faults on demand (SPEC 8, SPEC 22): 5xx answers by path pattern,
// dropped connections (before and after the effect), added latency, slow
// tasks, tasks that fail with a given text and nodes that are down. The Datastore.Allocate
// refusal is in storage.test.ts.
import { expect } from 'chai';
import { captured, shape, startTestSim, type TestSim } from './sim-helpers.js';

const Q = '/nodes/pv1-1/qemu';

describe('simulator: faults (SPEC 8, 22)', () => {
  let sim: TestSim;
  beforeEach(async () => {
    sim = await startTestSim();
  });
  afterEach(async () => {
    await sim.close();
  });

  const task = (upid: string): Promise<{ status: string; exitstatus?: string }> =>
    sim.data('GET', `/nodes/pv1-1/tasks/${encodeURIComponent(upid)}/status`);

  it('answers 5xx on matching paths at rate 1, none at rate 0, and leaves other paths alone', async () => {
    await sim.faults({ errors: [{ path: '/cluster/resources$', rate: 1, status: 503 }] });
    expect(shape(await sim.api('GET', '/cluster/resources', { type: 'vm' }))).to.deep.equal(captured('err_unavailable_503'));
    expect((await sim.api('GET', '/version')).status).to.equal(200);
    await sim.faults({ errors: [{ path: '/cluster/resources$', rate: 0, status: 503 }] });
    expect((await sim.api('GET', '/cluster/resources', { type: 'vm' })).status).to.equal(200);
  });

  it('answers a 500 with the text given, and changes nothing when it fires on a write', async () => {
    await sim.faults({ errors: [{ path: '/clone$', rate: 1, message: "can't lock file '/var/lock/qemu-server/lock-199999.conf' - got timeout" }] });
    expect(shape(await sim.api('POST', `${Q}/9001/clone`, { newid: 199999, name: 'x' }))).to.deep.equal(captured('err_lock_timeout'));
    expect((await sim.api('GET', `${Q}/199999/config`)).status).to.equal(500);
  });

  it('fires on the methods named only', async () => {
    await sim.faults({ errors: [{ path: '/config$', rate: 1, status: 502, methods: ['PUT'] }] });
    expect((await sim.api('GET', `${Q}/9001/config`)).status).to.equal(200);
    expect(shape(await sim.api('PUT', `${Q}/9001/config`, { cores: 2 }))).to.deep.equal(captured('err_bad_gateway_502'));
  });

  it('drops the connection before the request takes effect', async () => {
    await sim.faults({ drops: [{ path: '/clone$', rate: 1 }] });
    let failure: unknown;
    await sim.api('POST', `${Q}/9001/clone`, { newid: 199999, name: 'x' }).catch((err: unknown) => (failure = err));
    expect(failure).to.be.instanceOf(Error);
    await sim.faults({});
    expect((await sim.api('GET', `${Q}/199999/config`)).status).to.equal(500);
  });

  it('drops the connection after the effect, so the answer is lost but the clone exists', async () => {
    await sim.faults({ drops: [{ path: '/clone$', rate: 1, afterEffect: true }] });
    let failure: unknown;
    await sim.api('POST', `${Q}/9001/clone`, { newid: 199999, name: 'x' }).catch((err: unknown) => (failure = err));
    expect(failure).to.be.instanceOf(Error);
    await sim.faults({});
    expect(await sim.data('GET', `${Q}/199999/config`)).to.include({ lock: 'clone', description: 'qmclone temporary file' });
  });

  it('adds latency to every API answer', async () => {
    await sim.faults({ latencyMs: 300 });
    const started = Date.now();
    await sim.api('GET', '/version');
    expect(Date.now() - started).to.be.at.least(250);
  });

  it('slows tasks by the factor given', async () => {
    await sim.faults({ slowTasks: 10 });
    const upid = await sim.data<string>('POST', `${Q}/9001/clone`, { newid: 199999, name: 'slow', full: 1 });
    sim.clock.advance(19);
    expect(await task(upid)).to.include({ status: 'running' });
    sim.clock.advance(1);
    expect(await task(upid)).to.include({ status: 'stopped', exitstatus: 'OK' });
  });

  it('fails the next tasks of a type with the text given, as many times as asked', async () => {
    await sim.control('POST', 'vms', { node: 'pv1-1', vmid: 4242, config: { name: 'f' } });
    await sim.faults({ failTasks: [{ type: 'qmstart', exitstatus: 'start failed: QEMU exited with code 1', count: 1 }] });
    const first = await sim.data<string>('POST', `${Q}/4242/status/start`);
    sim.clock.advance(1);
    expect(await task(first)).to.include({ status: 'stopped', exitstatus: 'start failed: QEMU exited with code 1' });
    expect(await sim.data('GET', `${Q}/4242/status/current`)).to.include({ status: 'stopped' });
    const log = await sim.data<{ t: string }[]>('GET', `/nodes/pv1-1/tasks/${encodeURIComponent(first)}/log`);
    expect(log.map((l) => l.t)).to.deep.equal(['TASK ERROR: start failed: QEMU exited with code 1']);
    const second = await sim.data<string>('POST', `${Q}/4242/status/start`);
    sim.clock.advance(1);
    expect(await task(second)).to.include({ exitstatus: 'OK' });
  });

  it('takes a node offline: listed offline, its guests unknown, calls to it 595 No route to host', async () => {
    await sim.faults({ offlineNodes: ['pv1-2'] });
    const nodes = await sim.data<{ node: string; status: string }[]>('GET', '/nodes');
    expect(nodes.map((n) => [n.node, n.status])).to.deep.equal([['pv1-1', 'online'], ['pv1-2', 'offline']]);
    expect(shape(await sim.api('GET', '/nodes/pv1-2/status'))).to.deep.equal(captured('err_proxy_595'));
    const vms = await sim.data<{ node: string; vmid: number; status: string }[]>('GET', '/cluster/resources', { type: 'vm' });
    expect(new Set(vms.filter((v) => v.node === 'pv1-2').map((v) => v.status))).to.deep.equal(new Set(['unknown']));
    expect(vms.find((v) => v.node === 'pv1-1' && v.vmid === 9001)?.status).to.equal('stopped');
    expect((await sim.api('GET', '/nodes/pv1-1/status')).status).to.equal(200);
  });

  it('removes the VM of a clone whose task fails', async () => {
    await sim.faults({ failTasks: [{ type: 'qmclone', exitstatus: 'clone failed: out of space' }] });
    const upid = await sim.data<string>('POST', `${Q}/9001/clone`, { newid: 199999, name: 'x', full: 1 });
    sim.clock.advance(2);
    expect(await task(upid)).to.include({ exitstatus: 'clone failed: out of space' });
    expect((await sim.api('GET', `${Q}/199999/config`)).status).to.equal(500);
  });
});
