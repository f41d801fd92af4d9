// SPEC 22 "Chaos", the quick version for `npm test`: 20 names, two real
// worker processes, one killed every few seconds, simulator faults, then
// the invariants; and the same with a private Redis restarted mid-run; and
// on two simulated clusters with one away for a minute at the suite's
// scale (SPEC 32). The long version (100 names, longer, CHAOS_LONG=1) is
// chaos.long.test.ts.
import { expect } from 'chai';
import { chaosOptions, clusterChaosOptions, summary } from './options.js';
import { clusterSummary, runClusterChaos } from './clusters-scenario.js';
import { LOCK_TTL_MS, runChaos } from './scenario.js';

/** A minute at the suite's scale of the service's own times (its 30 s lock TTL is 2 s here): 4 s. */
const SCALED_MINUTE_MS = (60_000 * LOCK_TTL_MS) / 30_000;

describe('chaos, quick (SPEC 22)', function () {
  this.timeout(180_000);

  it('kills and faults: every name ends as desired, one VM per name, no seed without its VM, every job ended with an outcome', async () => {
    const options = chaosOptions({});
    const report = await runChaos(options);
    process.stdout.write(`      ${summary(report, options.seed)}\n`);
    expect(report.kills, 'workers were killed').to.be.at.least(2);
    expect(report.injected5xx + report.dropped, 'faults were injected').to.be.greaterThan(0);
    expect(report.violations, report.violations.slice(0, 20).join('\n')).to.deep.equal([]);
  });

  it('the same with a private Redis (AOF on) restarted mid-run', async () => {
    const options = chaosOptions({ redisRestarts: 1 });
    const report = await runChaos(options);
    process.stdout.write(`      ${summary(report, options.seed)}\n`);
    expect(report.redisRestarts).to.equal(1);
    expect(report.violations, report.violations.slice(0, 20).join('\n')).to.deep.equal([]);
  });

  it('two clusters, one away for a minute (scaled) mid-drive: creates go on on the other, no name on both, no orphan, nothing of the away one deleted or made elsewhere, and it converges once back (SPEC 32)', async function () {
    // It waits for a VM on west, then for the late creates and a sweep: longer than the others on a loaded machine.
    this.timeout(300_000);
    const options = clusterChaosOptions({ names: 20, lateNames: 4, driveMs: 12_000, awayAtMs: 3_000, awayMs: SCALED_MINUTE_MS });
    const report = await runClusterChaos(options);
    process.stdout.write(`      ${clusterSummary(report, options.seed)}\n`);
    expect(report.kills, 'workers were killed').to.be.at.least(2);
    expect(report.awayNoticedAfterMs, 'the health said the cluster away').not.to.equal(undefined);
    expect(report.lateOnEast, 'creates made while it was away ran on the other').to.equal(4);
    expect(report.kept, 'VMs of the away cluster checked kept').to.be.at.least(1);
    expect(report.violations, report.violations.slice(0, 20).join('\n')).to.deep.equal([]);
  });
});
