// Child processes the benchmarks and the chaos suite run: the simulator
// (`pve-provisioner sim`) and workers (`pve-provisioner worker`), each a
// real process started through tsx from src/, configured by environment
// variables (SPEC 7) and stopped by pid.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'src', 'cli.ts');

export interface Child {
  process: ChildProcess;
  pid: number;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then SIGKILL after graceMs; resolves when it is gone. */
  stop(graceMs?: number): Promise<void>;
  kill(): Promise<void>;
  exited: Promise<number | null>;
}

/** Runs `pve-provisioner <args>` with the given environment on top of this one's; nodeArgs before the script (`--cpu-prof`, which NODE_OPTIONS refuses). */
export function startCli(args: string[], env: Record<string, string>, nodeArgs: string[] = []): Child {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: string[] = [];
  child.stdout?.on('data', (b: Buffer) => chunks.push(b.toString()));
  child.stderr?.on('data', (b: Buffer) => chunks.push(b.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const gone = (): boolean => child.exitCode !== null || child.signalCode !== null;
  const kill = async (): Promise<void> => {
    if (!gone()) child.kill('SIGKILL');
    await exited;
  };
  return {
    process: child,
    pid: child.pid ?? -1,
    output: () => chunks.join(''),
    exited,
    kill,
    async stop(graceMs = 5000) {
      if (gone()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => void kill(), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Resolves when the child's output matches, rejects when it exits or the time is up. */
export async function waitForOutput(child: Child, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(child.output());
    if (match) return match;
    if (child.process.exitCode !== null) throw new Error(`child exited ${child.process.exitCode} before printing ${pattern}: ${child.output().slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`child did not print ${pattern} within ${timeoutMs} ms: ${child.output().slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface SimChild {
  child: Child;
  url: string;
  tokenFile: string;
  /** sim.timeScale: the simulator's durations are a real host's times this. */
  timeScale: number;
  /** GET or POST a /_sim/ endpoint. */
  control<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T>;
}

export interface SimChildOptions {
  vms: number;
  timeScale?: number;
  agentSeconds?: number;
  /** Extra environment (SIM_* keys). */
  env?: Record<string, string>;
  /** Arguments to node itself (`--cpu-prof`). */
  nodeArgs?: string[];
}

/** A token file for the simulator and the workers to share. */
export function newTokenFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pvep-bench-'));
  const file = join(dir, 'proxmox-token');
  writeFileSync(file, `root@pam!bench=${randomUUID()}\n`, { mode: 0o600 });
  return file;
}

export async function startSimChild(options: SimChildOptions): Promise<SimChild> {
  const tokenFile = newTokenFile();
  const timeScale = options.timeScale ?? 0.01;
  const env: Record<string, string> = {
    PROXMOX_TOKEN_FILE: tokenFile,
    SIM_TIME_SCALE: String(timeScale),
    LOG_LEVEL: 'warn',
    ...(options.agentSeconds !== undefined ? { SIM_AGENT_SECONDS: String(options.agentSeconds) } : {}),
    ...options.env,
  };
  const child = startCli(['sim', '--port', '0', '--vms', String(options.vms)], env, options.nodeArgs);
  const match = await waitForOutput(child, /listening on (https?:\/\/[^\s]+) /, 120_000);
  const url = match[1] as string;
  return {
    child,
    url,
    tokenFile,
    timeScale,
    async control<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
      const res = await fetch(`${url}${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    },
  };
}

/** Environment for a worker (or any service process) on the simulator child and a Redis prefix. */
export function serviceEnv(sim: SimChild, redisUrl: string, prefix: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PROXMOX_URL: sim.url,
    PROXMOX_TOKEN_FILE: sim.tokenFile,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    // budgets.firstAddressSeconds's default (30 s, a real host's) at the simulator's scale, as its boot is.
    BUDGETS_FIRST_ADDRESS_SECONDS: String(30 * sim.timeScale),
    ...extra,
  };
}

/** Stops a run's processes, the producer first, then the workers (SIGTERM, 5 s grace), then the simulator; the caller then clears its Redis keys. */
export async function stopRun(parts: { client?: { close(): Promise<void> } | undefined; workers: Child[]; sim?: SimChild | undefined }): Promise<void> {
  await parts.client?.close();
  await Promise.all(parts.workers.map((w) => w.stop()));
  await parts.sim?.child.stop();
}
