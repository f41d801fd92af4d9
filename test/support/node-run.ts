// Runs a Node script of a test's own (tsc over generated code, a program
// through tsx) as a child process and hands back its exit code and output.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const repo = join(import.meta.dirname, '..', '..');
/** The repository's TypeScript compiler. */
export const TSC = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
/** tsx's loader, for `--import` ahead of a .ts program. */
export const TSX_LOADER = pathToFileURL(join(repo, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

export interface NodeRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runNode(args: string[], cwd: string, env: Record<string, string> = {}, timeoutMs = 120_000): Promise<NodeRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, env: { ...process.env, ...env }, timeout: timeoutMs }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}
