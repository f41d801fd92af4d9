// The chaos runs' defaults (the quick version's sizes) and their one-line
// summary; CHAOS_SEED replays a run, CHAOS_VERBOSE=1 narrates it.
import { randomBytes } from 'node:crypto';
import type { ChaosOptions, ChaosReport } from './scenario.js';
import type { ClusterChaosOptions } from './clusters-scenario.js';

const SHARED_REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export function chaosOptions(overrides: Partial<ChaosOptions>): ChaosOptions {
  const seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
  return {
    names: 20,
    driveMs: 12_000,
    killEveryMs: 3_000,
    minKills: 2,
    redisRestarts: 0,
    sharedRedisUrl: SHARED_REDIS,
    prefix: `pvep-test-chaos-${randomBytes(4).toString('hex')}`,
    seed,
    log: process.env.CHAOS_VERBOSE === '1' ? (line) => process.stderr.write(`  chaos: ${line}\n`) : undefined,
    ...overrides,
  };
}

/** The two-cluster run's (SPEC 32) defaults: the quick run's kills and faults; the caller gives the sizes and the outage. */
export function clusterChaosOptions(sizes: Pick<ClusterChaosOptions, 'names' | 'lateNames' | 'driveMs' | 'awayAtMs' | 'awayMs'> & Partial<ClusterChaosOptions>): ClusterChaosOptions {
  const { sharedRedisUrl, prefix, seed, log, killEveryMs, minKills } = chaosOptions({});
  return { sharedRedisUrl, prefix, seed, killEveryMs, minKills, ...(log === undefined ? {} : { log }), ...sizes };
}

export function summary(report: ChaosReport, seed: number): string {
  const { tally } = report;
  return (
    `seed ${seed}: ${report.names} names, ${report.operations} operations, ${report.jobs} jobs ` +
    `(${tally.completed} completed, ${tally.superseded} superseded, ${tally.failed} failed), ${report.kills} kills, ` +
    `${report.injected5xx} 5xx answers, ${report.dropped} dropped connections, ${report.slowTaskPhases} slow-task phases, ` +
    `${report.redisRestarts} Redis restarts, ${report.failovers} failovers, ${report.producerRetries} producer retries, ${report.seconds.toFixed(1)} s`
  );
}

