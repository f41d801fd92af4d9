// The shared Proxmox request budget (SPEC 26) against the real Redis,
// each test under a prefix of its own: two budgets on two connections (two
// worker processes) share one ceiling, a request still in flight keeps its
// slot, a job's signal ends a wait at once with its reason, the wait is
// measured, and with Redis unreachable calls still go, paced by the
// process alone, with one warn line.
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createLogger, silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { keys } from '../../src/redis-keys.js';
import { createRequestBudget } from '../../src/proxmox/request-budget.js';
import type { RequestBudget, RequestBudgetOptions } from '../../src/proxmox/request-budget.js';
import { REDIS_URL, uniquePrefix } from '../support/redis.js';

/** The most of `times` (ms, sorted) that fall in any half-open window of `windowMs`. */
function peakInWindow(times: number[], windowMs: number): number {
  let peak = 0;
  for (let last = 0, first = 0; last < times.length; last += 1) {
    while ((times[last] as number) - (times[first] as number) >= windowMs) first += 1;
    peak = Math.max(peak, last - first + 1);
  }
  return peak;
}

/** Takes a slot and answers at once, noting when the request went. */
async function send(budget: RequestBudget, sent: number[], call = 'version'): Promise<void> {
  const finish = await budget.take(call);
  sent.push(Date.now());
  finish();
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Settles once the event loop has run every callback already due (no timer involved). */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Settled {
  state: 'pending' | 'granted' | 'refused';
  reason?: unknown;
}

function track(promise: Promise<unknown>): Settled {
  const settled: Settled = { state: 'pending' };
  promise.then(
    () => (settled.state = 'granted'),
    (reason: unknown) => Object.assign(settled, { state: 'refused', reason }),
  );
  return settled;
}

describe('the shared Proxmox request budget (SPEC 26)', function () {
  this.timeout(20_000);
  let prefix: string;
  let admin: Redis;
  const budgets: RequestBudget[] = [];

  function budget(options: Partial<RequestBudgetOptions> = {}): RequestBudget {
    const made = createRequestBudget({
      redis: options.redis ?? new Redis(REDIS_URL, { commandTimeout: 1000, maxRetriesPerRequest: 1 }),
      prefix,
      maxRequestsPerSecond: 5,
      burst: 0,
      inFlightMs: 10_000,
      logger: silentLogger(),
      ...options,
    });
    budgets.push(made);
    return made;
  }

  beforeEach(() => {
    prefix = uniquePrefix('budget');
    admin = new Redis(REDIS_URL);
  });

  afterEach(async () => {
    for (const made of budgets.splice(0)) await made.close();
    await admin.del(...keys.proxmoxBudget(prefix));
    admin.disconnect();
  });

  it('lets no more than maxRequestsPerSecond through in any one second, across two processes\' budgets, burst or not', async () => {
    const limit = 5;
    const first = budget({ maxRequestsPerSecond: limit, burst: limit });
    const second = budget({ maxRequestsPerSecond: limit, burst: limit });
    const granted: number[] = [];
    await Promise.all(Array.from({ length: 8 }, (_, i) => [send(first, granted), send(second, granted), ...(i < 2 ? [send(first, granted)] : [])]).flat());
    granted.sort((a, b) => a - b);
    expect(granted).to.have.length(18);
    expect(peakInWindow(granted, 1000)).to.equal(limit);
  });

  it('keeps a request\'s slot while it is in flight, and for one second after its answer', async () => {
    // In flight a minute at most: longer than this test may take.
    const two = budget({ maxRequestsPerSecond: 2, burst: 2, inFlightMs: 60_000 });
    const slow = await Promise.all([two.take('upload'), two.take('clusterResources')]);
    const third = track(two.take('version'));
    // Past the second in which both went: still held, because neither answered.
    await pause(1_300);
    expect(third.state).to.equal('pending');
    const answeredAt = Date.now();
    (slow[0])();
    while (third.state === 'pending') await pause(10);
    expect(third.state).to.equal('granted');
    expect(Date.now() - answeredAt).to.be.at.least(1_000);
    (slow[1])();
  });

  it('keeps its state under the {prefix} hash tag, with a TTL, so it lives in one Cluster slot and cleans itself up', async () => {
    (await budget().take('version'))();
    const [pace, ceiling] = keys.proxmoxBudget(prefix);
    expect(pace).to.equal(`{${prefix}}:proxmox-budget:pace`);
    expect(ceiling).to.equal(`{${prefix}}:proxmox-budget:ceiling`);
    expect(await admin.pttl(pace)).to.be.greaterThan(0);
    expect(await admin.pttl(ceiling)).to.be.greaterThan(0);
    expect(await admin.zcard(ceiling)).to.equal(1);
  });

  it('ends a waiting call as soon as its job is cancelled, with the cancellation\'s reason, and serves the next', async () => {
    const one = budget({ maxRequestsPerSecond: 1 });
    (await one.take('clone'))();
    const cancel = new AbortController();
    const waiting = track(one.take('putConfig', cancel.signal));
    const behind = track(one.take('start'));
    // Its slot is a second away: let it ask Redis and go to sleep first.
    for (let i = 0; i < 20 && waiting.state === 'pending'; i += 1) await pause(10);
    expect(waiting.state).to.equal('pending');
    const reason = new Error('lost the job lock');
    cancel.abort(reason);
    await turn();
    expect(waiting).to.deep.equal({ state: 'refused', reason });
    expect(behind.state).to.equal('pending');
    while (behind.state === 'pending') await pause(20);
    expect(behind.state).to.equal('granted');
  });

  it('refuses at once a call whose signal is already aborted', async () => {
    const reason = new Error('worker shutting down');
    const err = await budget()
      .take('version', AbortSignal.abort(reason))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).to.equal(reason);
  });

  it('measures each call\'s wait in pvep_proxmox_budget_wait_seconds and counts the held ones', async () => {
    const metrics = createMetrics();
    const one = budget({ maxRequestsPerSecond: 2, metrics });
    await Promise.all([send(one, []), send(one, []), send(one, [])]);
    const wait = await metrics.budgetWait.get();
    const count = wait.values.find((v) => v.metricName === 'pvep_proxmox_budget_wait_seconds_count');
    const sum = wait.values.find((v) => v.metricName === 'pvep_proxmox_budget_wait_seconds_sum');
    expect(count?.value).to.equal(3);
    // The third waited for the second's interval and the first's.
    expect(sum?.value).to.be.greaterThan(0.5);
    const held = await metrics.budgetWaits.get();
    expect(held.values[0]?.value).to.equal(2);
    expect((await metrics.budgetUnavailableTotal.get()).values[0]?.value ?? 0).to.equal(0);
  });

  it('measures a call once: its job\'s signal aborting after the call got its slot changes nothing (waiting-line.ts stops listening)', async () => {
    const metrics = createMetrics();
    const job = new AbortController();
    (await budget({ metrics }).take('version', job.signal))();
    job.abort(new Error('job cancelled after its call'));
    await turn();
    const wait = await metrics.budgetWait.get();
    expect(wait.values.find((v) => v.metricName === 'pvep_proxmox_budget_wait_seconds_count')?.value).to.equal(1);
  });

  it('lets calls through when Redis is unreachable, paced by this process alone, with one warn line', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const metrics = createMetrics();
    // Nothing listens on port 1.
    const down = new Redis('redis://127.0.0.1:1', { commandTimeout: 200, maxRetriesPerRequest: 1 });
    down.on('error', () => undefined);
    const limit = 10;
    // Asked on every call, so each call meets the failure; the warn line still comes once.
    const logger = createLogger({ level: 'warn', pretty: false, destination: sink });
    const unreachable = budget({ redis: down, maxRequestsPerSecond: limit, metrics, logger, redisRetryMs: 0 });
    const granted: number[] = [];
    await Promise.all(Array.from({ length: 15 }, () => send(unreachable, granted)));
    expect(granted).to.have.length(15);
    expect(peakInWindow(granted.sort((a, b) => a - b), 1000)).to.be.at.most(limit);
    const warns = lines.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((line) => line.level === 40);
    expect(warns).to.have.length(1);
    expect(warns[0]?.msg).to.contain('Redis did not answer');
    expect((await metrics.budgetUnavailableTotal.get()).values[0]?.value).to.equal(15);
  });
});
