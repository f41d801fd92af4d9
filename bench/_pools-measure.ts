// What bench/pools.ts reads out of one run (issue 32, SPEC 30): the
// seeded arrival times, each create's accept-to-ready and origin from its
// job, the Proxmox calls each claim made (from the simulator's request
// log), what the refill did (from the workers' log lines), and the
// done-when's bars. Pure functions: no process, no network.
import type { JobView } from '../src/queue/job-view.js';
import { percentile, type SimRequest } from './_boot-storm-measure.js';
import { seeded } from '../test/support/seeded.js';

/** `count` arrival offsets (ms, ascending), uniform at random over `spanMs`: a Poisson process's arrivals given their number. */
export function arrivals(seed: number, count: number, spanMs: number): number[] {
  const random = seeded(seed);
  return Array.from({ length: count }, () => Math.floor(random() * spanMs)).sort((a, b) => a - b);
}

/** One create of the run, as its job ended. */
export interface CreateOutcome {
  name: string;
  /** `pool`, `cold`, or `failed` (the job did not complete Running with an address). */
  origin: 'pool' | 'cold' | 'failed';
  /** The job's createdAt (the 202) to its finishedAt, wall seconds. */
  seconds: number;
  vmid?: number;
  node?: string;
  createdAt: number;
  finishedAt: number;
  failedReason?: string;
}

export function outcomeOf(name: string, view: JobView): CreateOutcome {
  const createdAt = Date.parse(view.createdAt);
  const finishedAt = view.finishedAt === undefined ? Number.NaN : Date.parse(view.finishedAt);
  const result = (view.state === 'completed' ? view.result : undefined) as { origin?: string; vmid?: number; node?: string; address?: string; state?: string } | undefined;
  const ready = result !== undefined && result.state === 'Running' && result.address !== undefined;
  const origin = !ready ? 'failed' : result.origin === 'pool' ? 'pool' : 'cold';
  return {
    name,
    origin,
    seconds: (finishedAt - createdAt) / 1000,
    ...(result?.vmid === undefined ? {} : { vmid: result.vmid }),
    ...(result?.node === undefined ? {} : { node: result.node }),
    createdAt,
    finishedAt,
    ...(ready ? {} : { failedReason: `${view.state} ${view.failedReason ?? JSON.stringify(view.result ?? null)}` }),
  };
}

/**
 * The calls one claim made: every request for the claimed VM's VMID on
 * its node (`/nodes/<node>/qemu/<vmid>/...`) between the create's 202 and
 * its end. Nothing else touches a claimed member's VMID then: the member's
 * own create ended before it became idle, and nothing deletes it.
 */
export function callsOfClaim(claim: CreateOutcome, requests: readonly SimRequest[]): number {
  if (claim.vmid === undefined || claim.node === undefined) return 0;
  const path = `/nodes/${claim.node}/qemu/${claim.vmid}/`;
  return requests.filter((r) => r.path.includes(path) && Date.parse(r.at) >= claim.createdAt && Date.parse(r.at) <= claim.finishedAt).length;
}

export interface Spread {
  n: number;
  p50: number;
  p95: number;
  max: number;
}

export function spread(values: readonly number[]): Spread {
  return { n: values.length, p50: percentile([...values], 50), p95: percentile([...values], 95), max: values.length === 0 ? Number.NaN : Math.max(...values) };
}

/** What the refill logged (src/pools/refill.ts: `pool <P>: created a, b; drained x (reason)`), counted. */
export interface RefillTally {
  created: number;
  drained: Record<string, number>;
  /** Lines saying no more could be created, and why. */
  refused: string[];
}

export function refillTally(pool: string, messages: readonly string[]): RefillTally {
  const tally: RefillTally = { created: 0, drained: {}, refused: [] };
  const line = new RegExp(`^pool ${pool}: created (.*?); drained (.*?)(?:; no more created: (.*))?$`);
  for (const message of messages) {
    const match = line.exec(message);
    if (match === null) continue;
    const [, created = 'none', drained = 'none', refused] = match;
    if (created !== 'none') tally.created += created.split(', ').length;
    if (drained !== 'none') {
      for (const item of drained.split(', ')) {
        const reason = /\(([^)]+)\)$/.exec(item)?.[1] ?? 'unknown';
        tally.drained[reason] = (tally.drained[reason] ?? 0) + 1;
      }
    }
    if (refused !== undefined) tally.refused.push(refused);
  }
  return tally;
}

/** The `msg` of each JSON log line (pino), or the raw line. */
export function logMessages(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        const { msg } = JSON.parse(line) as { msg?: unknown };
        return typeof msg === 'string' ? msg : line;
      } catch {
        return line;
      }
    });
}

export interface Bar {
  name: string;
  value: number;
  limit: string;
  met: boolean;
}

/** Issue 32's done-when, judged on the pool run: hits' accept-to-ready p95 at most 3 s, hit ratio at least 95 %. */
export function poolBars(hitP95Seconds: number, hitRatio: number): Bar[] {
  return [
    { name: 'pool hits: accept-to-ready p95 (s)', value: hitP95Seconds, limit: '<= 3', met: hitP95Seconds <= 3 },
    { name: 'hit ratio (%)', value: hitRatio * 100, limit: '>= 95', met: hitRatio >= 0.95 },
  ];
}
