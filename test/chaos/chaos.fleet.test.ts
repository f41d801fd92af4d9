// SPEC 22 and 25: the quick chaos run on a six-node Redis Cluster and on a
// Sentinel set of the test's own, with the master that holds our keys
// SIGKILLed in the middle of the drive: every invariant of SPEC 22 holds.
// Runs with CHAOS_FLEET=1 (`npm run test:chaos-fleet` runs each ten
// times; not in .ci/run, see docs/decisions.md); CHAOS_FLEET_RUNS=N repeats each N times. npm test has the
// failover itself in test/e2e/redis-failover.test.ts.
import { expect } from 'chai';
import type { FleetKind } from '../support/redis-fleet.js';
import { chaosOptions, summary } from './options.js';
import { runChaos } from './scenario.js';

const FLEET = process.env.CHAOS_FLEET === '1';
const RUNS = Number(process.env.CHAOS_FLEET_RUNS ?? 1);

for (const fleet of ['cluster', 'sentinel'] as FleetKind[]) {
  (FLEET ? describe : describe.skip)(`chaos on a Redis ${fleet === 'cluster' ? 'Cluster' : 'Sentinel set'}, master SIGKILLed (SPEC 22, 25)`, function () {
    this.timeout(300_000);
    for (let run = 1; run <= RUNS; run += 1) {
      it(`run ${run}: every name ends as desired, one VM per name, no seed without its VM, every job ended with an outcome`, async () => {
        const options = chaosOptions({ fleet });
        const report = await runChaos(options);
        process.stdout.write(`      ${fleet}: ${summary(report, options.seed)}\n`);
        expect(report.failovers, 'the master was killed and a replica took over').to.equal(1);
        expect(report.kills, 'workers were killed').to.be.at.least(2);
        expect(report.violations, report.violations.slice(0, 20).join('\n')).to.deep.equal([]);
      });
    }
  });
}
