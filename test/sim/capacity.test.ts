// SPEC 28: the simulator models Proxmox's capacity per node and per
// daemon. Every node runs pveproxy and pvedaemon, each with a few workers
// serving one call at a time, the rest waiting in arrival order; a wait of
// 30 s (scaled) ends in 596. Asserted here on a clock that never moves and
// holds that end at once, so only order and the model's own accounting
// remain, never wall time. The HTTP side is in daemons-http.test.ts.
import { expect } from 'chai';
import { SimAnswerError } from '../../src/sim/answer-error.js';
import { DaemonModel, answerBytes, isKnownRoute, isProtected, isProxiedToNode, type CallRoute, type DaemonModelOptions, type HandlerWork } from '../../src/sim/daemons.js';
import { rawJson } from '../../src/sim/http-io.js';
import { ROUTES } from '../../src/sim/routes.js';
import { WaitTimedOut, WorkerPool, type WorkerPoolOptions } from '../../src/sim/worker-pool.js';

const instant = (): Promise<void> => Promise.resolve();
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function frozenPool(options: Partial<WorkerPoolOptions>): WorkerPool {
  return new WorkerPool({ workers: 1, bucketMs: 10, keptBuckets: 100, now: () => 0, sleep: instant, ...options });
}

function frozenModel(options: Partial<DaemonModelOptions> = {}): DaemonModel {
  return new DaemonModel({ nodes: ['n1', 'n2'], proxyWorkers: 3, daemonWorkers: 3, costMs: 10, costPerKibMs: 0, timeScale: 1, now: () => 0, sleep: instant, ...options });
}

/** Holds a worker for `costMs`; whether its answer came after the deadline. */
async function hold(pool: WorkerPool, costMs: number, log: number[], id: number, deadline = Infinity): Promise<boolean> {
  const lease = await pool.acquire({ deadline });
  log.push(id);
  return (await lease.finish(costMs)).timedOut;
}

const idle: HandlerWork = { qmpVms: 0, heldSeconds: 0 };

/** A call whose work the test ends by hand. */
function pending(model: DaemonModel, call: CallRoute, work: HandlerWork = idle): { started: Promise<void>; end(): void; answer: Promise<string> } {
  let markStarted!: () => void;
  let end!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const ended = new Promise<void>((resolve) => (end = resolve));
  const answer = model.serve(
    call,
    async () => {
      markStarted();
      await ended;
      return 'ok';
    },
    () => work,
  );
  return { started, end: () => end(), answer };
}

const CONFIG_GET = 'GET /nodes/{node}/qemu/{vmid}/config';
const CONFIG_PUT = 'PUT /nodes/{node}/qemu/{vmid}/config';
const UPLOAD = 'POST /nodes/{node}/storage/{storage}/upload';

describe('simulator daemon model (SPEC 28)', () => {
  describe('one daemon of one node', () => {
    it('serves one call per worker, the rest in arrival order, on the virtual schedule (N calls of C span N*C)', async () => {
      const pool = frozenPool({ workers: 1 });
      const log: number[] = [];

      await Promise.all([0, 1, 2, 3, 4].map((i) => hold(pool, 10, log, i)));

      expect(log).to.deep.equal([0, 1, 2, 3, 4]);
      // All arrived at 0: the k-th waited 10k ms.
      expect(pool.counters()).to.include({ workers: 1, served: 5, peakInProgress: 1, peakWaiting: 4, longestWaitMs: 40, meanWaitMs: 20, busyWorkerSeconds: 0.05, timedOut596: 0 });
    });

    it('never has more calls in progress than workers', async () => {
      const pool = frozenPool({ workers: 2 });
      await Promise.all([0, 1, 2, 3, 4, 5, 6].map((i) => hold(pool, 10, [], i)));
      expect(pool.counters()).to.include({ peakInProgress: 2, peakWaiting: 5, served: 7 });
    });

    it('ends a wait that reaches its deadline with WaitTimedOut, and that call never runs', async () => {
      const pool = frozenPool({ workers: 1 });
      const log: number[] = [];

      const results = await Promise.allSettled([hold(pool, 40, log, 0), hold(pool, 5, log, 1, 30)]);

      expect(results[1]).to.have.property('status', 'rejected');
      expect((results[1] as PromiseRejectedResult).reason).to.be.instanceOf(WaitTimedOut);
      expect(log).to.deep.equal([0]);
      expect(pool.counters()).to.include({ served: 1, timedOut596: 1, waiting: 0 });
      // The worker is free again for the next call.
      await hold(pool, 5, log, 2);
      expect(log).to.deep.equal([0, 2]);
    });

    it('answers a call whose end passes its deadline at the deadline, counted, and keeps its worker busy until the end', async () => {
      const slept: number[] = [];
      const pool = new WorkerPool({ workers: 1, bucketMs: 10, keptBuckets: 10, now: () => 0, sleep: (ms) => (slept.push(ms), Promise.resolve()) });
      const lease = await pool.acquire({ deadline: 30 });
      const after = pool.acquire();
      expect(await lease.finish(50)).to.deep.equal({ timedOut: true });
      // It slept to its end (50) and, separately, to its deadline (30); the next call starts at 50.
      expect([...slept].sort((a, b) => a - b)).to.deep.equal([30, 50]);
      const next = await after;
      expect(next.start).to.equal(50);
      expect(pool.counters()).to.include({ served: 1, timedOut596: 1, busyWorkerSeconds: 0.05 });
      await next.finish(0);
      expect(await (await pool.acquire({ deadline: 100 })).finish(10)).to.deep.equal({ timedOut: false });
    });

    it('ends the wait on the wall clock when no worker can free before the deadline (a holder sleeping out a long cost)', async () => {
      const pool = new WorkerPool({ workers: 1, bucketMs: 10, keptBuckets: 10, now: () => performance.now(), sleep: () => new Promise<void>(() => undefined) });
      const holder = await pool.acquire();
      void holder.finish(600_000);
      const err = await pool.acquire({ deadline: performance.now() + 20 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(WaitTimedOut);
      expect(pool.counters()).to.include({ timedOut596: 1, waiting: 0 });
    });

    it('still counts a worker whose call ends at the same moment as another one as freeing before a deadline', async () => {
      const wake: (() => void)[] = [];
      const pool = new WorkerPool({ workers: 2, bucketMs: 10, keptBuckets: 10, now: () => 0, sleep: () => new Promise<void>((resolve) => wake.push(resolve)) });
      const [a, b] = [await pool.acquire(), await pool.acquire()];
      const first = pool.acquire({ deadline: 20 });
      const second = pool.acquire({ deadline: 20 });
      void a.finish(10);
      void b.finish(10);
      wake.shift()?.();
      // The first waiter takes a's worker and holds it past the second's deadline; b's still frees at 10.
      void (await first).finish(1000);
      await new Promise((resolve) => setTimeout(resolve, 40));
      wake.shift()?.();
      expect((await second).start).to.equal(10);
      expect(pool.counters().timedOut596).to.equal(1);
    });

    it('keeps a timeline of the most workers busy per bucket, bounded', async () => {
      let now = 0;
      const pool = new WorkerPool({ workers: 3, bucketMs: 10, keptBuckets: 4, now: () => now, sleep: instant });
      const a = await pool.acquire();
      const b = await pool.acquire();
      await a.finish(5);
      now = 25;
      await b.finish(25);
      now = 60;
      const { timeline } = pool.counters();
      expect(timeline.bucketMs).to.equal(10);
      // Buckets 30..60 kept (4 of 7); two were busy until 25, none after.
      expect(timeline.buckets).to.deep.equal([
        { at: 30, busy: 0 },
        { at: 40, busy: 0 },
        { at: 50, busy: 0 },
        { at: 60, busy: 0 },
      ]);
      now = 0;
      const fresh = new WorkerPool({ workers: 3, bucketMs: 10, keptBuckets: 100, now: () => now, sleep: instant });
      const c = await fresh.acquire();
      const d = await fresh.acquire();
      await c.finish(5);
      await d.finish(25);
      now = 30;
      expect(fresh.counters().timeline.buckets).to.deep.equal([
        { at: 0, busy: 2 },
        { at: 10, busy: 1 },
        { at: 20, busy: 1 },
        { at: 30, busy: 0 },
      ]);
    });

    it('with 0 workers is not modelled: every call at once, nothing counted', async () => {
      const pool = frozenPool({ workers: 0 });
      const leases = await Promise.all([1, 2, 3, 4].map(() => pool.acquire()));
      expect(leases).to.have.length(4);
      expect(pool.counters()).to.include({ workers: 0, served: 0, peakInProgress: 0 });
    });
  });

  describe('routing (protected methods from vendor/pve-api/protected.json)', () => {
    it('knows every route the simulator implements, and places the ones the audit names', () => {
      for (const key of Object.keys(ROUTES)) expect(isKnownRoute(key), key).to.equal(true);
      expect(isProtected(CONFIG_PUT)).to.equal(true);
      expect(isProtected(CONFIG_GET)).to.equal(false);
      expect(isProtected('GET /nodes/{node}/qemu/{vmid}/agent/network-get-interfaces')).to.equal(true);
      expect(isProtected('GET /nodes/{node}/tasks')).to.equal(false);
      expect(isProtected(UPLOAD)).to.equal(true);
      expect(isProxiedToNode(UPLOAD)).to.equal(false);
      expect(isProxiedToNode(CONFIG_GET)).to.equal(true);
    });

    it('runs an unprotected call for the entry node in its pveproxy, once', async () => {
      const model = frozenModel();
      await model.serve({ entryNode: 'n1', routeKey: CONFIG_GET, pathNode: 'n1' }, () => Promise.resolve(''), () => idle);
      const { nodes } = model.counters();
      expect(nodes.n1?.pveproxy.served).to.equal(1);
      expect(nodes.n1?.pvedaemon.served).to.equal(0);
      expect(nodes.n2?.pveproxy.served).to.equal(0);
    });

    it("proxies a call for another node to that node's pveproxy, and runs a protected one in that node's pvedaemon", async () => {
      const model = frozenModel();
      await model.serve({ entryNode: 'n1', routeKey: CONFIG_GET, pathNode: 'n2' }, () => Promise.resolve(''), () => idle);
      let { nodes } = model.counters();
      expect([nodes.n1?.pveproxy.served, nodes.n2?.pveproxy.served, nodes.n2?.pvedaemon.served]).to.deep.equal([1, 1, 0]);

      model.resetCounters();
      await model.serve({ entryNode: 'n1', routeKey: CONFIG_PUT, pathNode: 'n2' }, () => Promise.resolve(''), () => idle);
      ({ nodes } = model.counters());
      expect([nodes.n1?.pveproxy.served, nodes.n1?.pvedaemon.served, nodes.n2?.pveproxy.served, nodes.n2?.pvedaemon.served]).to.deep.equal([1, 0, 1, 1]);
    });

    it("answers a call for an offline node from the entry node's pveproxy alone", async () => {
      const model = frozenModel();
      await model.serve({ entryNode: 'n1', routeKey: CONFIG_PUT, pathNode: 'n2', pathNodeOffline: true }, () => Promise.resolve(''), () => idle);
      const { nodes } = model.counters();
      expect([nodes.n1?.pveproxy.served, nodes.n2?.pveproxy.served, nodes.n2?.pvedaemon.served]).to.deep.equal([1, 0, 0]);
    });

    it("runs an upload for another node in the entry node's pvedaemon and charges its two SSH commands there", async () => {
      const model = frozenModel({ costMs: 10, timeScale: 0.5 });
      await model.serve({ entryNode: 'n1', routeKey: UPLOAD, pathNode: 'n2' }, () => Promise.resolve(''), () => idle);
      const { nodes } = model.counters();
      // (10 ms + 2 x 500 ms) x 0.5
      expect(nodes.n1?.pvedaemon.busyWorkerSeconds).to.be.closeTo(0.505, 1e-9);
      expect(nodes.n2?.pvedaemon.served).to.equal(0);

      model.resetCounters();
      await model.serve({ entryNode: 'n2', routeKey: UPLOAD, pathNode: 'n2' }, () => Promise.resolve(''), () => idle);
      expect(model.counters().nodes.n2?.pvedaemon.busyWorkerSeconds).to.be.closeTo(0.005, 1e-9);
    });
  });

  describe('costs', () => {
    it('charges the handler its base, per KiB of answer, per QMP asked and what it waited, scaled by timeScale', async () => {
      const model = frozenModel({ costMs: 4, costPerKibMs: 2, timeScale: 0.5 });
      const call = { entryNode: 'n1', routeKey: CONFIG_GET, pathNode: 'n1' };
      const tenKib = 'x'.repeat(10 * 1024 - answerBytes(''));
      await model.serve(call, () => Promise.resolve(tenKib), () => idle);
      expect(model.counters().nodes.n1?.pveproxy.busyWorkerSeconds).to.be.closeTo(((4 + 2 * 10) * 0.5) / 1000, 1e-9);

      model.resetCounters();
      await model.serve({ ...call, routeKey: 'GET /nodes/{node}/qemu' }, () => Promise.resolve(rawJson('')), () => ({ qmpVms: 3, heldSeconds: 3 }));
      const { nodes } = model.counters();
      // Entry step 4; the listing in pvedaemon 4 x (1 + 3) + 3000 + 2 x (9 bytes / KiB).
      expect(nodes.n1?.pveproxy.busyWorkerSeconds).to.be.closeTo(0.002, 1e-9);
      expect(nodes.n1?.pvedaemon.busyWorkerSeconds).to.be.closeTo(((16 + 3000 + (2 * 9) / 1024) * 0.5) / 1000, 1e-9);
    });

    it('charges an error answer the base and what the handler waited, and frees the worker', async () => {
      const model = frozenModel({ daemonWorkers: 1 });
      const call = { entryNode: 'n1', routeKey: CONFIG_PUT, pathNode: 'n1' };
      const failed = model.serve(call, () => Promise.reject(new Error('boom')), () => ({ qmpVms: 0, heldSeconds: 3 }));
      const next = model.serve(call, () => Promise.resolve('ok'), () => idle);
      expect(await failed.catch((err: unknown) => (err instanceof Error ? err.message : err))).to.equal('boom');
      expect(await next).to.equal('ok');
      expect(model.counters().nodes.n1?.pvedaemon).to.include({ served: 2, busyWorkerSeconds: 3.02, longestWaitMs: 3010 });
    });

    it('sizes an answer as sent: {"data": ...}', () => {
      expect(answerBytes(rawJson('[1,2]'))).to.equal(Buffer.byteLength('{"data":[1,2]}'));
      expect(answerBytes({ a: 'é' })).to.equal(Buffer.byteLength(JSON.stringify({ data: { a: 'é' } })));
    });
  });

  describe('per node', () => {
    it("a node's saturated pvedaemon does not slow another node's", async () => {
      const model = frozenModel({ daemonWorkers: 3 });
      const onN1 = [0, 1, 2, 3].map(() => pending(model, { entryNode: 'n1', routeKey: CONFIG_PUT, pathNode: 'n1' }));
      await Promise.all(onN1.slice(0, 3).map((c) => c.started));
      await flush();
      expect(model.counters().nodes.n1?.pvedaemon).to.include({ inProgress: 3, waiting: 1 });

      const onN2 = pending(model, { entryNode: 'n1', routeKey: CONFIG_PUT, pathNode: 'n2' });
      await onN2.started;
      expect(model.counters().nodes.n2?.pvedaemon).to.include({ inProgress: 1, waiting: 0 });
      onN2.end();
      expect(await onN2.answer).to.equal('ok');
      expect(model.counters().nodes.n2?.pvedaemon.longestWaitMs).to.equal(0);

      for (const c of onN1) {
        c.end();
        await flush();
      }
      await Promise.all(onN1.map((c) => c.answer));
      expect(model.counters().nodes.n1?.pvedaemon).to.include({ served: 4, peakInProgress: 3 });
    });
  });

  describe('596 (pveproxy proxy timeout, 30 s scaled)', () => {
    const AGENT = 'GET /nodes/{node}/qemu/{vmid}/agent/network-get-interfaces';

    /** Runs a call on the model, counting its work's runs; settles to its answer or its error. */
    function counted(model: DaemonModel, call: CallRoute, work: HandlerWork, runs: { n: number }): Promise<PromiseSettledResult<string>> {
      const run = (): Promise<string> => {
        runs.n += 1;
        return Promise.resolve('ok');
      };
      return model.serve(call, run, () => work).then(
        (value): PromiseSettledResult<string> => ({ status: 'fulfilled', value }),
        (reason: unknown): PromiseSettledResult<string> => ({ status: 'rejected', reason }),
      );
    }

    function expect596(result: PromiseSettledResult<string> | undefined): void {
      const reason = (result as PromiseRejectedResult).reason as SimAnswerError;
      expect(reason).to.be.instanceOf(SimAnswerError);
      expect([reason.status, reason.message]).to.deep.equal([596, 'Connection timed out']);
    }

    it('answers 596 `Connection timed out` to a call still waiting for pvedaemon 30 s x timeScale after it was proxied; it never runs', async () => {
      const model = frozenModel({ daemonWorkers: 1, timeScale: 0.001, costMs: 0 });
      const call = { entryNode: 'n1', routeKey: AGENT, pathNode: 'n1' };
      const runs = { n: 0 };
      // The first holds the one worker 29 s (scaled 29 ms), in time; the second waits until 29 s, runs 2 s: late, but it ran.
      // The third waits until 31 s: past its deadline, it never runs.
      const results = await Promise.all([
        counted(model, call, { qmpVms: 0, heldSeconds: 29 }, runs),
        counted(model, call, { qmpVms: 0, heldSeconds: 2 }, runs),
        counted(model, call, idle, runs),
      ]);

      expect(results[0]?.status).to.equal('fulfilled');
      expect596(results[1]);
      expect596(results[2]);
      expect(runs.n).to.equal(2);
      expect(model.counters().nodes.n1?.pvedaemon).to.include({ timedOut596: 2, served: 2 });
      // No worker is left held by a 596, run or not: every leg of every node is free again.
      await flush();
      for (const pools of Object.values(model.counters().nodes)) for (const pool of Object.values(pools)) expect(pool).to.include({ inProgress: 0, waiting: 0 });
    });

    it('answers 596 to a proxied call whose handler runs past 30 s x timeScale, though it ran to its end and held its worker that long', async () => {
      const model = frozenModel({ daemonWorkers: 1, timeScale: 0.001, costMs: 0 });
      const runs = { n: 0 };
      const result = await counted(model, { entryNode: 'n1', routeKey: CONFIG_PUT, pathNode: 'n2' }, { qmpVms: 0, heldSeconds: 31 }, runs);
      expect596(result);
      expect(runs.n).to.equal(1);
      const { nodes } = model.counters();
      expect(nodes.n2?.pvedaemon).to.include({ timedOut596: 1, served: 1, busyWorkerSeconds: 0.031 });
      expect(nodes.n1?.pveproxy.timedOut596).to.equal(0);
    });

    it('counts the downstream legs together: waits in the target pveproxy and its pvedaemon, each under 30 s, and the run', async () => {
      const model = frozenModel({ proxyWorkers: 1, daemonWorkers: 1, timeScale: 0.001, costMs: 0 });
      const runs = { n: 0 };
      // On n2: a protected call holds its pvedaemon until 29 s, an unprotected one its pveproxy until 15 s.
      // A protected call from n1 waits for n2's pveproxy until 15 s, for its pvedaemon until 29 s, runs 2 s: 596 at 30 s.
      const results = await Promise.all([
        counted(model, { entryNode: 'n2', routeKey: CONFIG_PUT, pathNode: 'n2' }, { qmpVms: 0, heldSeconds: 29 }, runs),
        counted(model, { entryNode: 'n2', routeKey: CONFIG_GET, pathNode: 'n2' }, { qmpVms: 0, heldSeconds: 15 }, runs),
        counted(model, { entryNode: 'n1', routeKey: CONFIG_PUT, pathNode: 'n2' }, { qmpVms: 0, heldSeconds: 2 }, runs),
      ]);
      expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'fulfilled', 'rejected']);
      expect596(results[2]);
      expect(runs.n).to.equal(3);
      const { nodes } = model.counters();
      expect([nodes.n2?.pveproxy.longestWaitMs, nodes.n2?.pvedaemon.longestWaitMs, nodes.n2?.pvedaemon.timedOut596]).to.deep.equal([15, 14, 1]);
    });

    it('never answers 596 to a call its entry pveproxy runs itself, however long it waited there', async () => {
      const model = frozenModel({ proxyWorkers: 1, timeScale: 0.001, costMs: 0 });
      const runs = { n: 0 };
      const call = { entryNode: 'n1', routeKey: CONFIG_GET, pathNode: 'n1' };
      const results = await Promise.all([counted(model, call, { qmpVms: 0, heldSeconds: 45 }, runs), counted(model, call, { qmpVms: 0, heldSeconds: 1 }, runs)]);
      expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'fulfilled']);
      expect(model.counters().nodes.n1?.pveproxy).to.include({ timedOut596: 0, longestWaitMs: 45 });
    });

    it('lets a call answered just under 30 s x timeScale through', async () => {
      const model = frozenModel({ daemonWorkers: 1, timeScale: 0.001, costMs: 0 });
      const call = { entryNode: 'n1', routeKey: CONFIG_PUT, pathNode: 'n1' };
      const runs = { n: 0 };
      const results = await Promise.all([counted(model, call, { qmpVms: 0, heldSeconds: 20 }, runs), counted(model, call, { qmpVms: 0, heldSeconds: 9.9 }, runs)]);
      expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'fulfilled']);
    });
  });
});
