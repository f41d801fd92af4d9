// SPEC 34 (issue 33): what a tenant's quotas cost the accept. The same
// creates through the producer library (no worker: the jobs stay
// waiting), 20 at once, three ways: the default tenant (admin, no quota:
// the hold is still taken), a tenant with every quota and a rate it never
// reaches, and a tenant whose VM quota is full (every create refused in
// the accept's script). Prints accepts a second and the accept's p50 and
// p95 for each, then one JSON line.
// Options: --creates N (2000), --quick (400).
import { performance } from 'node:perf_hooks';
import { createProvisionerClient, QuotaExceededError, type ProvisionerClient } from '../src/client.js';
import { loadConfig } from '../src/config/index.js';
import { benchFlags, benchPrefix, benchTarget, deletePrefix, intFlag, newRedis, printJson, printTable } from './_common.js';

const flags = benchFlags('tenant-accept', { creates: { type: 'string' } });
const CREATES = intFlag(flags, 'creates', 2000, 400);
const WIDTH = 20;

interface Run {
  way: string;
  acceptsPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  refused: number;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

async function drive(way: string, client: ProvisionerClient, namePrefix: string): Promise<Run> {
  const took: number[] = [];
  let refused = 0;
  let next = 0;
  const started = performance.now();
  const lane = async (): Promise<void> => {
    while (next < CREATES) {
      const i = next;
      next += 1;
      const t0 = performance.now();
      try {
        await client.createVm({ name: `${namePrefix}-${i}`, cores: 1, memoryMiB: 512, diskGiB: 4 });
      } catch (err) {
        if (!(err instanceof QuotaExceededError)) throw err;
        refused += 1;
      }
      took.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: WIDTH }, lane));
  const seconds = (performance.now() - started) / 1000;
  took.sort((a, b) => a - b);
  return { way, acceptsPerSecond: Math.round(CREATES / seconds), p50Ms: Number(quantile(took, 0.5).toFixed(2)), p95Ms: Number(quantile(took, 0.95).toFixed(2)), refused };
}

const prefix = benchPrefix('tenant-accept');
const config = loadConfig({ env: {}, overrides: { redis: { prefix } } });
const base = { redisUrl: benchTarget().url, redis: benchTarget(), prefix, config };
const ways: [string, ProvisionerClient, string][] = [
  ['default tenant (no quota)', createProvisionerClient(base), 'd'],
  ['every quota, never reached', createProvisionerClient({ ...base, tenant: { name: 'roomy', quotas: { vms: CREATES * 2, cores: CREATES * 2, memoryMiB: CREATES * 1024, diskGiB: CREATES * 8, createsPerMinute: CREATES * 10 } } }), 'r'],
  ['VM quota full (all refused)', createProvisionerClient({ ...base, tenant: { name: 'full', quotas: { vms: 1 } } }), 'f'],
];
const runs: Run[] = [];
try {
  await ways[2]?.[1].createVm({ name: 'f-first', cores: 1, memoryMiB: 512, diskGiB: 4 });
  for (const [way, client, namePrefix] of ways) runs.push(await drive(way, client, namePrefix));
} finally {
  for (const [, client] of ways) await client.close();
  const redis = newRedis();
  await deletePrefix(redis, prefix);
  redis.disconnect();
}
printTable(`accepts of ${CREATES} creates, ${WIDTH} at once (no worker)`, runs.map((r) => ({ way: r.way, 'accepts/s': r.acceptsPerSecond, 'p50 ms': r.p50Ms, 'p95 ms': r.p95Ms, refused: r.refused })));
printJson('tenant-accept', { creates: CREATES, width: WIDTH, runs });
