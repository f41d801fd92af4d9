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
  return new WorkerPool({ workers: 1, timeoutMs: Infinity, bucketMs: 10, keptBuckets: 100, now: () => 0, sleep: instant, ...options });
}

function frozenModel(options: Partial<DaemonModelOptions> = {}): DaemonModel {
  return new DaemonModel({ nodes: ['n1', 'n2'], proxyWorkers: 3, daemonWorkers: 3, costMs: 10, costPerKibMs: 0, timeScale: 1, now: () => 0, sleep: instant, ...options });
}

/** Holds a worker for `costMs` with a work the caller ends. */
async function hold(pool: WorkerPool, costMs: number, log: number[], id: number): Promise<void> {
  const lease = await pool.acquire();
  log.push(id);
  await lease.finish(costMs);
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

    it('ends a wait that reaches the timeout with WaitTimedOut, and that call never runs', async () => {
      const pool = frozenPool({ workers: 1, timeoutMs: 30 });
      const log: number[] = [];

      const results = await Promise.allSettled([hold(pool, 40, log, 0), hold(pool, 5, log, 1)]);

      expect(results[1]).to.have.property('status', 'rejected');
      expect((results[1] as PromiseRejectedResult).reason).to.be.instanceOf(WaitTimedOut);
      expect(log).to.deep.equal([0]);
      expect(pool.counters()).to.include({ served: 1, timedOut596: 1, waiting: 0 });
      // The worker is free again for the next call.
      await hold(pool, 5, log, 2);
      expect(log).to.deep.equal([0, 2]);
    });

    it('ends the wait on the wall clock when no worker can free before the deadline (a holder sleeping out a long cost)', async () => {
      const pool = new WorkerPool({ workers: 1, timeoutMs: 20, bucketMs: 10, keptBuckets: 10, now: () => performance.now(), sleep: () => new Promise<void>(() => undefined) });
      const holder = await pool.acquire();
      void holder.finish(600_000);
      const err = await pool.acquire().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(WaitTimedOut);
      expect(pool.counters()).to.include({ timedOut596: 1, waiting: 0 });
    });

    it('keeps a timeline of the most workers busy per bucket, bounded', async () => {
      let now = 0;
      const pool = new WorkerPool({ workers: 3, timeoutMs: Infinity, bucketMs: 10, keptBuckets: 4, now: () => now, sleep: instant });
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
      const fresh = new WorkerPool({ workers: 3, timeoutMs: Infinity, bucketMs: 10, keptBuckets: 100, now: () => now, sleep: instant });
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
    it("answers 596 `Connection timed out` to a call whose proxied leg waits 30 s x timeScale, and counts it", async () => {
      const model = frozenModel({ daemonWorkers: 1, timeScale: 0.001, costMs: 0 });
      const call = { entryNode: 'n1', routeKey: 'GET /nodes/{node}/qemu/{vmid}/agent/network-get-interfaces', pathNode: 'n1' };
      let ran = 0;
      const work = (): Promise<string> => {
        ran += 1;
        return Promise.resolve('');
      };
      // The first holds the one worker 31 s (scaled 31 ms): the second waits past 30 s.
      const results = await Promise.allSettled([model.serve(call, work, () => ({ qmpVms: 0, heldSeconds: 31 })), model.serve(call, work, () => idle)]);

      expect(results[0].status).to.equal('fulfilled');
      const reason = (results[1] as PromiseRejectedResult).reason as SimAnswerError;
      expect(reason).to.be.instanceOf(SimAnswerError);
      expect([reason.status, reason.message]).to.deep.equal([596, 'Connection timed out']);
      expect(ran).to.equal(1);
      expect(model.counters().nodes.n1?.pvedaemon).to.include({ timedOut596: 1, served: 1 });
    });

    it('lets a wait just under 30 s x timeScale through', async () => {
      const model = frozenModel({ daemonWorkers: 1, timeScale: 0.001, costMs: 0 });
      const call = { entryNode: 'n1', routeKey: CONFIG_PUT, pathNode: 'n1' };
      const results = await Promise.allSettled([model.serve(call, () => Promise.resolve(''), () => ({ qmpVms: 0, heldSeconds: 29.9 })), model.serve(call, () => Promise.resolve(''), () => idle)]);
      expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'fulfilled']);
    });
  });
});
