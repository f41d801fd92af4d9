// SPEC 32: a simulated cluster taken offline and back. Offline, every
// node's URL refuses connections (its listeners closed, open connections
// ended), as a cluster that cannot be reached; back, the same ports answer
// with the same state. In-process (offline()/online()) and through
// POST /_sim/offline {seconds}, which comes back by itself.
import { expect } from 'chai';
import { connect } from 'node:net';
import { eventually } from '../support/redis.js';
import { AUTH, startTestSim, type TestSim } from './sim-helpers.js';

/** How a connection to the URL ends: 'refused', or the HTTP status of GET /_sim/nodes. */
async function reach(url: string): Promise<'refused' | number> {
  try {
    return (await fetch(`${url}/_sim/nodes`)).status;
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    if (code === 'ECONNREFUSED') return 'refused';
    throw err;
  }
}

/** Opens a plain TCP connection; resolves when the server ends it. */
function heldConnection(port: number): Promise<{ ended: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const ended = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('connect', () => resolve({ ended }));
    socket.once('error', reject);
  });
}

describe('simulator: a cluster offline and back (SPEC 32)', () => {
  let sim: TestSim;
  beforeEach(async () => {
    sim = await startTestSim();
  });
  afterEach(async () => {
    await sim.close();
  });

  it('offline() refuses connections on every node\'s URL and ends open ones; online() answers on the same ports with the same VMs', async () => {
    await sim.control('POST', 'vms', { node: 'pv1-2', vmid: 4321, config: { name: 'kept-across', memory: 512 }, status: 'running' });
    const urls = Object.values(sim.nodeUrls);
    expect(urls).to.have.length(2);
    const held = await heldConnection(sim.port);

    await sim.offline();
    await held.ended;
    for (const url of urls) expect(await reach(url), url).to.equal('refused');
    expect(sim.sim.reachability?.isOffline()).to.equal(true);

    await sim.online();
    for (const url of urls) expect(await reach(url), url).to.equal(200);
    expect(sim.sim.reachability?.isOffline()).to.equal(false);
    const vm = await sim.data<{ name: string; status: string }>('GET', '/nodes/pv1-2/qemu/4321/status/current');
    expect(vm).to.include({ name: 'kept-across', status: 'running' });
  });

  it('offline() and online() twice are each one change', async () => {
    await Promise.all([sim.offline(), sim.offline()]);
    expect(await reach(sim.url)).to.equal('refused');
    await Promise.all([sim.online(), sim.online()]);
    expect(await reach(sim.url)).to.equal(200);
  });

  it('POST /_sim/offline answers, goes offline, and listens again after the given seconds', async () => {
    const answer = await fetch(`${sim.url}/_sim/offline`, { method: 'POST', body: JSON.stringify({ seconds: 0.5 }) });
    expect(answer.status).to.equal(200);
    const body = (await answer.json()) as { offline: boolean; seconds: number; backAt: string };
    expect(body).to.include({ offline: true, seconds: 0.5 });
    expect(Number.isNaN(Date.parse(body.backAt))).to.equal(false);
    // Offline once the answer went out, then back by itself.
    await eventually(async () => ((await reach(sim.url)) === 'refused' ? true : undefined), 5_000, 10);
    await eventually(async () => ((await reach(sim.url)) === 200 ? true : undefined), 10_000, 50);
    expect((await sim.api('GET', '/version', {}, AUTH)).status).to.equal(200);
  });

  it('refuses a malformed POST /_sim/offline naming seconds, and stays online', async () => {
    for (const body of [{}, { seconds: 0 }, { seconds: -1 }, { seconds: 'a minute' }, { seconds: 90_000 }, { seconds: 5, node: 'pv1-1' }]) {
      const answer = await fetch(`${sim.url}/_sim/offline`, { method: 'POST', body: JSON.stringify(body) });
      expect(answer.status, JSON.stringify(body)).to.equal(400);
      const { problems } = (await answer.json()) as { problems: string[] };
      expect(problems.join('; '), JSON.stringify(body)).to.match('node' in body ? /^node: unknown field/ : /^seconds: must be a number above 0/);
    }
    expect(await reach(sim.url)).to.equal(200);
  });

  it('an explicit online() ends a timed outage early, and close() during one leaves nothing listening', async () => {
    await sim.sim.reachability?.offlineFor(60_000);
    expect(await reach(sim.url)).to.equal('refused');
    await sim.online();
    expect(await reach(sim.url)).to.equal(200);
    await sim.sim.reachability?.offlineFor(60_000);
    await sim.close();
    // What the outage's end would run: after the close it listens on nothing.
    await sim.online();
    expect(await reach(sim.url)).to.equal('refused');
  });
});
