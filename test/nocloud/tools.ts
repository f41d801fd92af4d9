// Runs the ISO readers other people wrote (Debian packages). A missing tool
// fails the test with the package that provides it: CI installs them all.
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { UploadSource } from '../../src/proxmox/api.js';

/** The Debian package of each tool the tests run. */
export const PACKAGE_OF: Record<string, string> = {
  blkid: 'util-linux',
  xorriso: 'xorriso',
  isoinfo: 'genisoimage',
  '7z': 'p7zip-full',
  bsdtar: 'libarchive-tools',
  '/usr/bin/python3': 'python3-pycdlib (with python3)',
  'cloud-init': 'cloud-init',
  'cloud-localds': 'cloud-image-utils',
  mount: 'mount',
};

export interface ToolResult {
  status: number | null;
  stdout: Buffer;
  stderr: string;
}

/** blkid is in /usr/sbin, which a Debian user's PATH leaves out (scripts/test-setup.sh looks there too). */
function withSbin(path: string | undefined): string {
  return [path ?? '', '/usr/sbin', '/sbin'].filter((dir) => dir !== '').join(':');
}

/** Runs a tool; a missing one is an error naming its Debian package. */
export function runTool(command: string, args: readonly string[], input?: string): ToolResult {
  const result = spawnSync(command, args, { input, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, PATH: withSbin(process.env.PATH), LC_ALL: 'C' } });
  if (result.error) {
    const code = (result.error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new Error(`${command} is not installed: install the Debian package ${PACKAGE_OF[command] ?? '(unknown)'}`);
    }
    throw result.error;
  }
  return { status: result.status, stdout: result.stdout, stderr: result.stderr.toString('utf8') };
}

/** Runs a tool that must succeed; returns its stdout. */
export function mustRun(command: string, args: readonly string[], input?: string): Buffer {
  const result = runTool(command, args, input);
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${String(result.status)}: ${result.stderr.trim()}`);
  }
  return result.stdout;
}

export async function writeSource(source: UploadSource, path: string): Promise<void> {
  await pipeline(source.open(), createWriteStream(path));
}

export async function withTempDir(prefix: string): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
