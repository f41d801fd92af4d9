// SPEC 21 "Seed": the median time to build one seed ISO (build, then read
// the whole stream, as an upload does) and its size, with and without
// Joliet. Prints a table, then one JSON line. Options: --runs N, --quick.
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { buildSeed, type SeedInput } from '../src/nocloud/seed.js';

const { values } = parseArgs({
  options: { runs: { type: 'string' }, quick: { type: 'boolean' } },
  strict: true,
});
const runs = values.runs !== undefined ? Number(values.runs) : values.quick === true ? 30 : 300;
if (!Number.isInteger(runs) || runs < 1) {
  process.stderr.write(`bench/seed: --runs must be a positive integer, got ${String(values.runs)}\n`);
  process.exit(2);
}

// A realistic job: a few users and packages in user-data, a v2 network-config.
const USER_DATA = `#cloud-config\n${'users:\n  - name: ops\n    ssh_authorized_keys: ["ssh-ed25519 AAAA... ops@example"]\n'.repeat(8)}packages: [htop, curl]\n`;
const NETWORK_CONFIG = 'version: 2\nethernets:\n  eth0:\n    dhcp4: true\n';

async function buildAndRead(input: SeedInput): Promise<{ ms: number; size: number }> {
  const start = performance.now();
  const seed = buildSeed(input);
  let read = 0;
  for await (const chunk of seed.open()) read += (chunk as Buffer).length;
  const ms = performance.now() - start;
  if (read !== seed.size) throw new Error(`stream gave ${read} bytes, size said ${seed.size}`);
  return { ms, size: seed.size };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

interface Row {
  variant: string;
  runs: number;
  medianMs: number;
  minMs: number;
  sizeBytes: number;
}

async function measure(variant: string, joliet: boolean): Promise<Row> {
  const input: SeedInput = { name: `bench-${variant}`, userData: USER_DATA, networkConfig: NETWORK_CONFIG, installGuestAgent: true, joliet };
  for (let i = 0; i < Math.min(20, runs); i += 1) await buildAndRead(input); // warm-up
  const times: number[] = [];
  let size = 0;
  for (let i = 0; i < runs; i += 1) {
    const { ms, size: bytes } = await buildAndRead(input);
    times.push(ms);
    size = bytes;
  }
  return { variant, runs, medianMs: Number(median(times).toFixed(3)), minMs: Number(Math.min(...times).toFixed(3)), sizeBytes: size };
}

const rows = [await measure('rock-ridge', false), await measure('rock-ridge+joliet', true)];
process.stdout.write('seed ISO: build + read the whole stream\n');
process.stdout.write(`${'variant'.padEnd(20)}${'runs'.padStart(6)}${'median ms'.padStart(12)}${'min ms'.padStart(10)}${'size bytes'.padStart(12)}\n`);
for (const r of rows) {
  process.stdout.write(`${r.variant.padEnd(20)}${String(r.runs).padStart(6)}${r.medianMs.toFixed(3).padStart(12)}${r.minMs.toFixed(3).padStart(10)}${String(r.sizeBytes).padStart(12)}\n`);
}
process.stdout.write(`${JSON.stringify({ bench: 'seed', results: rows })}\n`);
