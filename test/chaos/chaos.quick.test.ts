// SPEC 22 "Chaos", the quick version for `npm test`: 20 names, two real
// worker processes, one killed every few seconds, simulator faults, then
// the invariants; and the same with a private Redis restarted mid-run.
// The long version (100 names, longer, CHAOS_LONG=1) is chaos.long.test.ts.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { runChaos, type ChaosOptions, type ChaosReport } from './scenario.js';

const SHARED_REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export function chaosOptions(overrides: Partial<ChaosOptions>): ChaosOptions {
  const seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
  return {
    names: 20,
    driveMs: 12_000,
    killEveryMs: 3_000,
    redisRestarts: 0,
    sharedRedisUrl: SHARED_REDIS,
    prefix: `pvep-test-chaos-${randomBytes(4).toString('hex')}`,
    seed,
    log: process.env.CHAOS_VERBOSE === '1' ? (line) => process.stderr.write(`  chaos: ${line}\n`) : undefined,
    ...overrides,
  };
}

export function summary(report: ChaosReport, seed: number): string {
  const { tally } = report;
  return (
    `seed ${seed}: ${report.names} names, ${report.operations} operations, ${report.jobs} jobs ` +
    `(${tally.completed} completed, ${tally.superseded} superseded, ${tally.failed} failed), ${report.kills} kills, ` +
    `${report.injected5xx} 5xx answers, ${report.dropped} dropped connections, ${report.slowTaskPhases} slow-task phases, ` +
    `${report.redisRestarts} Redis restarts, ${report.producerRetries} producer retries, ${report.seconds.toFixed(1)} s`
  );
}

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
