// bench/pools.ts's figures (issue 32, SPEC 30) come from these pure
// functions: the seeded arrivals, a create's origin and accept-to-ready
// from its job, the calls a claim made, the refill's log lines counted.
import { expect } from 'chai';
import type { JobView } from '../../src/queue/job-view.js';
import { arrivals, callsOfClaim, outcomeOf, poolBars, refillTally } from '../../bench/_pools-measure.js';
import type { SimRequest } from '../../bench/_boot-storm-measure.js';

function createView(over: Partial<JobView>): JobView {
  return { id: 'create-x-1', job: 'create', state: 'completed', data: {}, progress: 100, attemptsMade: 1, logs: [], createdAt: '2026-12-03T08:00:00.000Z', finishedAt: '2026-12-03T08:00:00.250Z', ...over } as JobView;
}

const request = (at: string, path: string): SimRequest => ({ at, method: 'GET', path, params: {}, status: 200 });

describe('bench/pools.ts measures (issue 32, SPEC 30)', () => {
  it('draws the same arrivals for the same seed, ascending within the span, and others for another seed', () => {
    const once = arrivals(7, 60, 60_000);
    expect(arrivals(7, 60, 60_000)).to.deep.equal(once);
    expect(once).to.have.length(60);
    expect(once.every((ms, i) => ms >= 0 && ms < 60_000 && (i === 0 || ms >= (once[i - 1] ?? 0)))).to.equal(true);
    expect(arrivals(8, 60, 60_000)).to.not.deep.equal(once);
  });

  it('counts a create a pool hit or cold by its result, and failed without a Running address', () => {
    const hit = outcomeOf('a', createView({ result: { state: 'Running', address: '10.0.0.5', origin: 'pool', vmid: 101, node: 'pve1' } as never }));
    expect(hit).to.include({ origin: 'pool', vmid: 101, node: 'pve1', seconds: 0.25 });
    expect(outcomeOf('b', createView({ result: { state: 'Running', address: '10.0.0.6', origin: 'cold' } as never })).origin).to.equal('cold');
    expect(outcomeOf('c', createView({ result: { state: 'Running' } as never })).origin).to.equal('failed');
    expect(outcomeOf('d', createView({ state: 'failed', failedReason: 'boom' }))).to.include({ origin: 'failed', failedReason: 'failed boom' });
  });

  it("counts a claim's calls: its VMID on its node, inside its 202 to its end only", () => {
    const claim = outcomeOf('a', createView({ result: { state: 'Running', address: '10.0.0.5', origin: 'pool', vmid: 101, node: 'pve1' } as never }));
    const requests = [
      request('2026-12-03T07:59:59.000Z', '/api2/json/nodes/pve1/qemu/101/status/current'),
      request('2026-12-03T08:00:00.010Z', '/api2/json/nodes/pve1/qemu/101/config'),
      request('2026-12-03T08:00:00.100Z', '/api2/json/nodes/pve1/qemu/101/config'),
      request('2026-12-03T08:00:00.200Z', '/api2/json/nodes/pve1/qemu/101/agent/file-write'),
      request('2026-12-03T08:00:00.200Z', '/api2/json/nodes/pve1/qemu/1010/config'),
      request('2026-12-03T08:00:00.200Z', '/api2/json/nodes/pve2/qemu/101/config'),
      request('2026-12-03T08:00:01.000Z', '/api2/json/nodes/pve1/qemu/101/config'),
    ];
    expect(callsOfClaim(claim, requests)).to.equal(3);
  });

  it("counts what the refill logged (src/pools/refill.ts's lines), members created and drained by reason", () => {
    const tally = refillTally('bench', [
      'job ended',
      'pool bench: created pvep-pool-bench-1, pvep-pool-bench-2; drained none',
      'pool bench: created none; drained pvep-pool-bench-1 (too-old), pvep-pool-bench-2 (over-max)',
      'pool bench: created pvep-pool-bench-3; drained none; no more created: the network is full',
      'pool other: created pvep-pool-other-1; drained none',
    ]);
    expect(tally).to.deep.equal({ created: 3, drained: { 'too-old': 1, 'over-max': 1 }, refused: ['the network is full'] });
  });

  it("judges issue 32's targets: hits' p95 at most 3 s, hit ratio at least 95 %", () => {
    expect(poolBars(3, 0.95).map((b) => b.met)).to.deep.equal([true, true]);
    expect(poolBars(3.01, 0.949).map((b) => b.met)).to.deep.equal([false, false]);
    expect(poolBars(Number.NaN, 0).map((b) => b.met)).to.deep.equal([false, false]);
  });
});
