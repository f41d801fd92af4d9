// SPEC 22 "Chaos", the quick version for `npm test`: 20 names, two real
// worker processes, one killed every few seconds, simulator faults, then
// the invariants; and the same with a private Redis restarted mid-run.
// The long version (100 names, longer, CHAOS_LONG=1) is chaos.long.test.ts.
import { expect } from 'chai';
import { chaosOptions, summary } from './options.js';
import { runChaos } from './scenario.js';

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
});
