// SPEC 22 "Chaos", the long version: 100 names, a minute of random
// operations, a worker killed every few seconds; and the same with a
// private Redis restarted twice mid-run; and about 500 creates and
// deletes against a pool of 64 addresses (SPEC 29); and creates claiming
// from a warm pool (SPEC 30) under the kills and a Redis restart; and two
// simulated clusters with one away for a whole minute mid-drive (SPEC 32).
// Runs only with CHAOS_LONG=1
// (`npm run test:chaos`); CHAOS_RUNS=N repeats each N times in a row.
import { expect } from 'chai';
import { chaosOptions, clusterChaosOptions, summary } from './options.js';
import { clusterSummary, runClusterChaos } from './clusters-scenario.js';
import { runChaos } from './scenario.js';

const LONG = process.env.CHAOS_LONG === '1';
const RUNS = Number(process.env.CHAOS_RUNS ?? 1);

(LONG ? describe : describe.skip)('chaos, long (SPEC 22; CHAOS_LONG=1)', function () {
  this.timeout(900_000);

  for (let run = 1; run <= RUNS; run += 1) {
    it(`run ${run}: 100 names, kills and faults, then the invariants`, async () => {
      const options = chaosOptions({ names: 100, driveMs: 60_000, killEveryMs: 4_000 });
      const report = await runChaos(options);
      process.stdout.write(`      ${summary(report, options.seed)}\n`);
      expect(report.violations, report.violations.slice(0, 30).join('\n')).to.deep.equal([]);
    });

    it(`run ${run}: the same with a private Redis (AOF on) restarted twice`, async () => {
      const options = chaosOptions({ names: 100, driveMs: 60_000, killEveryMs: 4_000, redisRestarts: 2 });
      const report = await runChaos(options);
      process.stdout.write(`      ${summary(report, options.seed)}\n`);
      expect(report.redisRestarts).to.equal(2);
      expect(report.violations, report.violations.slice(0, 30).join('\n')).to.deep.equal([]);
    });

    it(`run ${run}: about 500 creates and deletes against a pool of 64 addresses (SPEC 29)`, async () => {
      const options = chaosOptions({ names: 100, driveMs: 60_000, killEveryMs: 4_000, addresses: { cooldownMs: 3_000 } });
      const report = await runChaos(options);
      process.stdout.write(`      ${summary(report, options.seed)}, ${report.poolRefusals} creates refused with the pool full\n`);
      expect(report.operations).to.be.at.least(400);
      expect(report.violations, report.violations.slice(0, 30).join('\n')).to.deep.equal([]);
    });

    it(`run ${run}: creates claiming from a warm pool of 8 under kills and a Redis restart (SPEC 30, issue 32)`, async () => {
      const options = chaosOptions({ names: 100, driveMs: 60_000, killEveryMs: 4_000, redisRestarts: 1, pool: { minIdle: 8, maxIdle: 16 } });
      const report = await runChaos(options);
      process.stdout.write(`      ${summary(report, options.seed)}, ${report.poolClaims} present names on a claimed VM\n`);
      expect(report.redisRestarts).to.equal(1);
      expect(report.poolClaims, 'creates claimed').to.be.at.least(10);
      expect(report.violations, report.violations.slice(0, 30).join('\n')).to.deep.equal([]);
    });

    it(`run ${run}: 100 names on two clusters, one away for a minute mid-drive (SPEC 32)`, async () => {
      const options = clusterChaosOptions({ names: 100, lateNames: 10, driveMs: 90_000, awayAtMs: 15_000, awayMs: 60_000, killEveryMs: 4_000 });
      const report = await runClusterChaos(options);
      process.stdout.write(`      ${clusterSummary(report, options.seed)}\n`);
      expect(report.awaySeconds).to.be.at.least(60);
      expect(report.lateOnEast).to.equal(10);
      expect(report.kept, 'VMs of the away cluster checked kept').to.be.at.least(1);
      expect(report.violations, report.violations.slice(0, 30).join('\n')).to.deep.equal([]);
    });
  }
});
