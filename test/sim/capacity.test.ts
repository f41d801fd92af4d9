// SPEC 26: the simulator models pveproxy's capacity. `sim.apiWorkers`
// requests are served at a time, each holding a worker for its cost (more
// for a larger answer), the rest wait in arrival order; /_sim/ never waits;
// 0 workers (the default) is no model. The queueing is asserted by order
// and by the model's own accounting, never by wall time.
import { expect } from 'chai';
import { ApiCapacity, answerBytes, type CapacityOptions } from '../../src/sim/capacity.js';
import { rawJson } from '../../src/sim/http-io.js';
import { NODES, startTestSim, type TestSim } from './sim-helpers.js';

/** A model on a clock that never moves and holds that end at once: only order and accounting remain. */
function frozenModel(options: Partial<CapacityOptions>): ApiCapacity {
  return new ApiCapacity({ workers: 1, costMs: 10, costPerKibMs: 0, timeScale: 1, now: () => 0, sleep: () => Promise.resolve(), ...options });
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Sends `count` requests at once, each a work the test ends by hand, then
 * ends the oldest running one after another: the order the works started
 * in, and the most that ran at once.
 */
async function drive(model: ApiCapacity, count: number): Promise<{ started: number[]; mostRunning: number }> {
  const started: number[] = [];
  const running: (() => void)[] = [];
  const answers = Array.from({ length: count }, (_, i) =>
    model.serve(
      () =>
        new Promise<string>((resolve) => {
          started.push(i);
          running.push(() => resolve('{}'));
        }),
    ),
  );
  let mostRunning = 0;
  for (let ended = 0; ended < count; ended += 1) {
    await flush();
    mostRunning = Math.max(mostRunning, running.length);
    running.shift()?.();
  }
  await Promise.all(answers);
  return { started, mostRunning };
}

describe('simulator API capacity model (SPEC 26)', () => {
  it('with one worker serves concurrent requests one at a time, in arrival order, N requests spanning N times the cost', async () => {
    const model = frozenModel({ workers: 1, costMs: 10 });

    const { started, mostRunning } = await drive(model, 5);

    expect(started).to.deep.equal([0, 1, 2, 3, 4]);
    expect(mostRunning).to.equal(1);
    // All arrived at once: the k-th waited k costs; together they kept the worker busy 5 costs.
    expect(model.counters()).to.deep.equal({ workers: 1, inProgress: 0, waiting: 0, peakInProgress: 1, peakWaiting: 4, served: 5, waitedMs: 100, busyMs: 50 });
  });

  it('never has more than apiWorkers requests in progress', async () => {
    const model = frozenModel({ workers: 2, costMs: 10 });

    const { mostRunning } = await drive(model, 7);

    expect(mostRunning).to.equal(2);
    expect(model.counters()).to.include({ peakInProgress: 2, peakWaiting: 5, served: 7, busyMs: 70 });
  });

  it('charges a larger answer more, per KiB, and scales the cost by timeScale', async () => {
    const model = frozenModel({ workers: 1, costMs: 4, costPerKibMs: 2, timeScale: 0.5 });

    await model.serve(() => Promise.resolve('x'.repeat(10 * 1024)), (text) => text.length);
    await model.serve(() => Promise.resolve(''), (text) => text.length);

    // (4 + 2 * 10) * 0.5, then 4 * 0.5.
    expect(model.counters().busyMs).to.equal(14);
  });

  it('charges an error answer the base cost and frees its worker for the next request', async () => {
    const model = frozenModel({ workers: 1, costMs: 6, costPerKibMs: 100 });

    const failed = model.serve(() => Promise.reject(new Error('boom')));
    const next = model.serve(() => Promise.resolve('ok'), () => 0);

    expect(await failed.catch((err: unknown) => (err instanceof Error ? err.message : err))).to.equal('boom');
    expect(await next).to.equal('ok');
    expect(model.counters().busyMs).to.equal(12);
    expect(model.counters()).to.include({ served: 2, peakInProgress: 1 });
  });

  it('with 0 workers is off: every request runs at once and nothing is counted', async () => {
    const model = frozenModel({ workers: 0 });

    const { mostRunning } = await drive(model, 4);

    expect(mostRunning).to.equal(4);
    expect(model.counters()).to.include({ workers: 0, served: 0, peakInProgress: 0 });
  });

  it('sizes an answer as sent: {"data": ...}', () => {
    expect(answerBytes(rawJson('[1,2]'))).to.equal(Buffer.byteLength('{"data":[1,2]}'));
    expect(answerBytes({ a: 'é' })).to.equal(Buffer.byteLength(JSON.stringify({ data: { a: 'é' } })));
  });

  describe('over HTTP', () => {
    let sim: TestSim | undefined;

    afterEach(async () => {
      await sim?.close();
      sim = undefined;
    });

    it('is off by default', async () => {
      sim = await startTestSim();
      await sim.data('GET', '/version');
      expect(await sim.control('GET', 'capacity')).to.include({ workers: 0, served: 0 });
    });

    it('queues API requests beyond apiWorkers while /_sim/ answers at once', async () => {
      sim = await startTestSim({ apiWorkers: 1, requestCostMs: 600, requestCostPerKibMs: 0 });
      const running = sim;
      const answers = Array.from({ length: 3 }, () => running.api('GET', '/version'));
      let seen = { inProgress: 0, waiting: 0, served: 0 };
      while (seen.waiting === 0 && seen.served < 3) {
        seen = (await running.control('GET', 'capacity')) as typeof seen;
        await flush();
      }

      // Answered while API requests waited for the one worker: /_sim/ holds none.
      expect(seen.waiting).to.be.at.least(1);
      expect(seen.inProgress).to.equal(1);
      expect((await Promise.all(answers)).map((a) => a.status)).to.deep.equal([200, 200, 200]);
      const after = (await running.control('GET', 'capacity')) as Record<string, number>;
      expect(after).to.include({ workers: 1, peakInProgress: 1, served: 3, inProgress: 0, waiting: 0 });
      expect(after.peakWaiting).to.be.at.least(1);
    });

    it('charges /cluster/resources by the size of its answer', async () => {
      sim = await startTestSim({ vms: 2000, apiWorkers: 3, requestCostMs: 0, requestCostPerKibMs: 1 });
      const answer = await sim.api('GET', '/cluster/resources', { type: 'vm' });
      const counters = (await sim.control('GET', 'capacity')) as { busyMs: number };
      expect(counters.busyMs).to.be.closeTo(Buffer.byteLength(answer.body) / 1024, 0.01);
      expect(await sim.control('DELETE', 'capacity')).to.include({ served: 0, busyMs: 0, peakInProgress: 0 });
    });

    it("charges a node's full VM listing one request for each VM running on the node, as its QMP is asked for each (qemu-server vmstatus)", async () => {
      sim = await startTestSim({ vms: 20, apiWorkers: 3, requestCostMs: 10, requestCostPerKibMs: 0 });
      const listed = await sim.data<{ status: string }[]>('GET', `/nodes/${NODES[0] ?? ''}/qemu`);
      const running = listed.filter((vm) => vm.status === 'running').length;
      expect(running).to.be.at.least(2);
      await sim.control('DELETE', 'capacity');
      await sim.api('GET', `/nodes/${NODES[0] ?? ''}/qemu`, { full: 1 });
      const counters = (await sim.control('GET', 'capacity')) as { busyMs: number };
      expect(counters.busyMs).to.be.closeTo(10 * (1 + running), 0.01);
    });
  });
});
