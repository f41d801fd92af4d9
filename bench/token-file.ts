// The cost of the Proxmox token per call (SPEC 18, issue 25): reading the
// token file on every call, as the worker did, against the kept token
// (src/proxmox/token-cache.ts: a stat at most once a second). CPU time
// of --calls N calls each (default 20,000), run one after the other.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTokenSource } from '../src/proxmox/token-cache.js';
import { readToken } from '../src/proxmox/token.js';
import { benchFlags, intFlag, printJson, printTable } from './_common.js';

const flags = benchFlags('token-file', { calls: { type: 'string' } });
const CALLS = intFlag(flags, 'calls', 20_000, 5_000);

async function cpuMicrosPerCall(token: () => Promise<string>): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < CALLS; i += 1) await token();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / CALLS;
}

const dir = mkdtempSync(join(tmpdir(), 'pvep-bench-token-'));
try {
  const file = join(dir, 'token');
  writeFileSync(file, 'root@pam!bench=3f0c9a7e-51b2-4d86-a1e4-7c2b9d0e6f15\n', { mode: 0o600 });
  const source = createTokenSource(file);
  const everyCall = await cpuMicrosPerCall(() => readToken(file));
  const kept = await cpuMicrosPerCall(() => source.token());
  const rows = [
    { way: 'read on every call', calls: CALLS, cpuMicrosPerCall: Number(everyCall.toFixed(2)) },
    { way: 'kept, checked once a second', calls: CALLS, cpuMicrosPerCall: Number(kept.toFixed(2)) },
  ];
  printTable(`the Proxmox token per call (node ${process.version} + tsx)`, rows);
  printJson('token-file', { calls: CALLS, readEveryCallCpuMicros: everyCall, keptCpuMicros: kept });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
