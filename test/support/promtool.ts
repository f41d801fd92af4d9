// Runs Prometheus's promtool (Debian's `prometheus` package; scripts/test-setup.sh
// installs it as root) and hands back its exit code and output. A machine
// without it fails the test and says what to install, never a silent skip.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

export const PROMTOOL = '/usr/bin/promtool';

export interface PromtoolRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function promtool(args: readonly string[], input?: string): Promise<PromtoolRun> {
  if (!existsSync(PROMTOOL)) throw new Error(`${PROMTOOL} is missing: install the Debian package prometheus (npm run test:setup does, as root)`);
  return new Promise((resolve, reject) => {
    const child = spawn(PROMTOOL, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}
