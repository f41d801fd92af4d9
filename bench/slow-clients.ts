// SPEC 24, issue 25: N connections that send a POST's headers without a
// token and then trickle the body a byte a second, against a started web
// process (`pve-provisioner web`, its own process), while /healthz is
// asked every 200 ms. Prints what the attackers saw (401s, connections the
// server closed), the server's peak of open file descriptors, and /healthz's
// answers and times. Only 127.0.0.1; the run lasts --seconds.
//
// File descriptors: each process may hold `ulimit -n` of them (its soft
// limit; no process may raise it past the hard one), so the attackers are
// spread over several processes of at most 5,000 connections each.
//
//   npx tsx bench/slow-clients.ts [--connections 20000] [--seconds 30] [--quick]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REDIS_URL, benchFlags, benchPrefix, deletePrefix, intFlag, newRedis, printJson, printTable, sleep } from './_common.js';
import { ROOT, startCli, waitForOutput } from './_processes.js';

const flags = benchFlags('slow-clients', { connections: { type: 'string' }, seconds: { type: 'string' } });
const connections = intFlag(flags, 'connections', 20_000, 2_000);
const seconds = intFlag(flags, 'seconds', 30, 10);

/** This process's soft limit of open files (ulimit -n), from /proc. */
function openFilesLimit(): number {
  const line = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  return line?.[1] === undefined ? 1024 : Number(line[1]);
}

function openFiles(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return Number.NaN;
  }
}

interface AttackCounts {
  opened: number;
  connected: number;
  got401: number;
  otherAnswer: number;
  closedByServer: number;
  failed: number;
  open: number;
}

function startAttacker(port: number, count: number): { child: ChildProcess; last: () => AttackCounts | undefined; exited: Promise<void> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', '_slow-client.ts'), String(port), String(count)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let last: AttackCounts | undefined;
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') last = JSON.parse(line) as AttackCounts;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, last: () => last, exited };
}

async function probeHealthz(url: string): Promise<{ ok: boolean; ms: number }> {
  const started = performance.now();
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) });
    await res.arrayBuffer();
    return { ok: res.status === 200, ms: performance.now() - started };
  } catch {
    return { ok: false, ms: performance.now() - started };
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

const prefix = benchPrefix('slow-clients');
const dir = mkdtempSync(join(tmpdir(), 'pvep-bench-slow-'));
const limit = openFilesLimit();
const perAttacker = Math.max(1, Math.min(5_000, limit - 200));
const attackers = Math.ceil(connections / perAttacker);
process.stdout.write(`open files per process (ulimit -n): ${limit}; ${connections} connections over ${attackers} attacker process(es)\n`);

const web = startCli(['web'], {
  REDIS_URL,
  REDIS_PREFIX: prefix,
  HTTP_PORT: '0',
  HTTP_API_TOKENS_FILE: join(dir, 'api-tokens'),
  HTTP_BOARD_USERS_FILE: join(dir, 'board-users'),
  // The default level: each request's line is part of what the server pays.
  LOG_LEVEL: 'info',
});
const redis = newRedis();
try {
  const url = (await waitForOutput(web, /API at (http:\/\/127\.0\.0\.1:\d+)\/v1/, 120_000))[1] as string;
  const port = Number(new URL(url).port);
  const before = await probeHealthz(url);
  const fdsBefore = openFiles(web.pid);

  const running = Array.from({ length: attackers }, (_, i) => startAttacker(port, Math.min(perAttacker, connections - i * perAttacker)));
  const probes: { ok: boolean; ms: number }[] = [];
  let peakFds = fdsBefore;
  const until = Date.now() + seconds * 1_000;
  while (Date.now() < until) {
    const [probe] = await Promise.all([probeHealthz(url), sleep(200)]);
    probes.push(probe);
    peakFds = Math.max(peakFds, openFiles(web.pid));
  }
  for (const attacker of running) attacker.child.kill('SIGTERM');
  await Promise.all(running.map((a) => Promise.race([a.exited, sleep(10_000)])));
  const totals = running.reduce<AttackCounts>(
    (sum, a) => {
      const c = a.last();
      if (c === undefined) return sum;
      return Object.fromEntries(Object.entries(sum).map(([k, v]) => [k, v + c[k as keyof AttackCounts]])) as unknown as AttackCounts;
    },
    { opened: 0, connected: 0, got401: 0, otherAnswer: 0, closedByServer: 0, failed: 0, open: 0 },
  );
  const answered = probes.filter((p) => p.ok).map((p) => p.ms).sort((a, b) => a - b);
  const result = {
    connections,
    seconds,
    attackers,
    connected: totals.connected,
    got401: totals.got401,
    otherAnswer: totals.otherAnswer,
    closedByServer: totals.closedByServer,
    stillOpenAtEnd: totals.open,
    connectFailed: totals.failed,
    serverFdsBefore: fdsBefore,
    serverFdsPeak: peakFds,
    healthzBeforeMs: Math.round(before.ms * 10) / 10,
    healthzProbes: probes.length,
    healthzAnswered: answered.length,
    healthzP50Ms: Math.round(percentile(answered, 50) * 10) / 10,
    healthzP99Ms: Math.round(percentile(answered, 99) * 10) / 10,
    healthzMaxMs: Math.round((answered.at(-1) ?? Number.NaN) * 10) / 10,
  };
  printTable('slow-body connections without a token against one web process', [
    { what: 'connections asked for', value: connections },
    { what: 'connected', value: totals.connected },
    { what: 'answered 401', value: totals.got401 },
    { what: 'closed by the server', value: totals.closedByServer },
    { what: 'still open at the end', value: totals.open },
    { what: 'connect failed', value: totals.failed },
    { what: 'server fds before / peak', value: `${fdsBefore} / ${peakFds}` },
    { what: '/healthz answered', value: `${answered.length} of ${probes.length}` },
    { what: '/healthz p50 / p99 / max (ms)', value: `${result.healthzP50Ms} / ${result.healthzP99Ms} / ${result.healthzMaxMs}` },
  ]);
  printJson('slow-clients', result);
} finally {
  await web.stop();
  await deletePrefix(redis, prefix);
  redis.disconnect();
  rmSync(dir, { recursive: true, force: true });
}
