// Helpers the benchmarks share (files starting with "_" are not run by
// bench/run.ts): flags, a Redis prefix of their own removed afterwards,
// tables and the final JSON line, and a provider that does nothing.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Cluster, Redis } from 'ioredis';
import { createWorkerConnection, type RedisClient } from '../src/queue/connection.js';
import { hostPorts, type RedisConnection } from '../src/queue/redis-target.js';
import type { ClaimRequest, CreateResult, CreateSpec, DeleteResult, ListedVm, NodeHealth, Provider, SeedIso, VmObservation, StopResult } from '../src/provider/types.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface BenchFlags {
  quick: boolean;
  values: Record<string, string | boolean | undefined>;
}

/** `--quick` plus the bench's own string options; exit 2 on an unknown flag. */
export function benchFlags(name: string, options: Record<string, { type: 'string' | 'boolean' }> = {}): BenchFlags {
  try {
    const { values } = parseArgs({ options: { quick: { type: 'boolean' }, ...options }, strict: true });
    return { quick: values.quick === true, values: values };
  } catch (err) {
    process.stderr.write(`bench/${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
}

export function intFlag(flags: BenchFlags, key: string, full: number, quick: number): number {
  const given = flags.values[key];
  if (typeof given !== 'string') return flags.quick ? quick : full;
  const value = Number(given);
  if (!Number.isInteger(value) || value < 1) {
    process.stderr.write(`--${key} must be a positive integer, got ${given}\n`);
    process.exit(2);
  }
  return value;
}

export function benchPrefix(what: string): string {
  return `pvep-bench-${what}-${randomBytes(4).toString('hex')}`;
}

/**
 * The Redis a bench runs on: REDIS_URL, or the Redis Cluster that
 * REDIS_CLUSTER_NODES names (comma-separated host:port), read when asked
 * so that a bench can start a cluster and set it for its children.
 */
export function benchTarget(): RedisConnection {
  const nodes = (process.env.REDIS_CLUSTER_NODES ?? '').split(',').map((n) => n.trim()).filter((n) => n !== '');
  return nodes.length > 0 ? { url: REDIS_URL, clusterNodes: nodes } : { url: REDIS_URL };
}

/** A worker-style connection (commands wait while Redis is away) to benchTarget(). */
export function benchConnection(): RedisClient {
  return createWorkerConnection(benchTarget());
}

/**
 * The bare BullMQ worker's connection: ioredis as a BullMQ user would make
 * it, without what the service adds to its worker connection (its retry
 * strategy, the outage reporting), so the bar compares against BullMQ
 * alone (SPEC 21).
 */
export function bareConnection(): RedisClient {
  const { clusterNodes } = benchTarget();
  return clusterNodes === undefined ? new Redis(REDIS_URL, { maxRetriesPerRequest: null }) : new Cluster(hostPorts(clusterNodes), { redisOptions: { maxRetriesPerRequest: null } });
}

/** Removes the keys under the prefix (and its {prefix} hash tag); on a Cluster from every master, one key per DEL. */
export async function deletePrefix(redis: RedisClient, prefix: string): Promise<number> {
  const servers = redis instanceof Cluster ? redis.nodes('master') : [redis];
  let removed = 0;
  for (const server of servers) {
    for (const pattern of [`${prefix}:*`, `{${prefix}}:*`]) {
      let cursor = '0';
      do {
        const [next, found] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        for (const key of found) removed += await server.del(key);
      } while (cursor !== '0');
    }
  }
  return removed;
}

export function newRedis(): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: null });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Prints rows as an aligned table under a title. */
export function printTable(title: string, rows: Record<string, string | number>[]): void {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0] as object);
  const text = (v: string | number | undefined): string => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(3)) : (v ?? ''));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => text(r[c]).length)));
  const line = (cells: string[]): string => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  process.stdout.write(`${title}\n${line(columns)}\n`);
  for (const row of rows) process.stdout.write(`${line(columns.map((c) => text(row[c])))}\n`);
}

/**
 * The last line of every bench: one JSON object. Then the process exits
 * once stdout is flushed, even if a library left a handle open.
 */
export function printJson(bench: string, result: object): void {
  process.stdout.write(`${JSON.stringify({ bench, ...result })}\n`, () => {
    setTimeout(() => process.exit(process.exitCode ?? 0), 2000).unref();
  });
}

/** Resident set size of a process, from /proc (Linux), in MiB. */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
  return kb === undefined ? Number.NaN : Number(kb) / 1024;
}

/** A provider that does nothing and answers at once: the queue is what is measured. */
export class NullProvider implements Provider {
  private nextVmid = 100000;

  create(spec: CreateSpec): Promise<CreateResult> {
    return Promise.resolve({ providerId: `vms/${this.nextVmid}/${spec.name}`, vmid: this.nextVmid++, node: 'pve1', uid: spec.uid, state: 'Running', createdAt: new Date().toISOString(), image: spec.image ?? 'default' });
  }
  /** SPEC 30: the claimed VM answers at once, as the member was. */
  claim({ spec, claim }: ClaimRequest): Promise<CreateResult> {
    return Promise.resolve({ providerId: `vms/${claim.vmid}/${spec.name}`, vmid: claim.vmid, node: claim.node, uid: spec.uid, state: 'Running', createdAt: new Date().toISOString(), image: spec.image ?? 'default', origin: 'pool' });
  }
  delete(): Promise<DeleteResult> {
    return Promise.resolve({ deleted: true, seedsDeleted: 0 });
  }
  stop(): Promise<StopResult> {
    return Promise.resolve({ stopped: true });
  }
  get(): Promise<VmObservation> {
    return Promise.resolve({ state: 'NotFound' });
  }
  findByName(): Promise<ListedVm[]> {
    return Promise.resolve([]);
  }
  findByNames(): Promise<ListedVm[]> {
    return Promise.resolve([]);
  }
  listByTag(): Promise<ListedVm[]> {
    return Promise.resolve([]);
  }
  listTaggedOrNamed(): Promise<ListedVm[]> {
    return Promise.resolve([]);
  }
  listSeeds(): Promise<SeedIso[]> {
    return Promise.resolve([]);
  }
  listRecordedSeeds(): Promise<SeedIso[]> {
    return Promise.resolve([]);
  }
  deleteSeed(): Promise<void> {
    return Promise.resolve();
  }
  health(): Promise<NodeHealth[]> {
    return Promise.resolve([]);
  }
}
