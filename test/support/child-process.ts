// Starts test/support/child-worker.ts as a real process and waits until
// its workers are running.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export interface ChildWorker {
  process: ChildProcess;
  /** Resolves with the exit code (or the signal's name) and when it came. */
  exited: Promise<{ code: number | string; at: number }>;
}

const running = new Set<ChildProcess>();

/** SIGKILLs every child still running (afterEach: a failed test leaves none behind). */
export function killChildWorkers(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

export async function startChildWorker(options: { prefix: string; stepMs: number; config?: Record<string, unknown>; realProvider?: boolean }): Promise<ChildWorker> {
  const script = resolve(import.meta.dirname, 'child-worker.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, CHILD_WORKER: JSON.stringify(options) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  running.add(child);
  const exited = new Promise<{ code: number | string; at: number }>((done) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      done({ code: code ?? signal ?? 'unknown', at: Date.now() });
    });
  });
  await new Promise<void>((ready, fail) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) ready();
    });
    void exited.then(({ code }) => fail(new Error(`child worker exited before it was ready (${code})`)));
  });
  return { process: child, exited };
}
