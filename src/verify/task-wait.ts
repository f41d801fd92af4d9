// Waiting for a task verify started (the probe's upload and delete): its
// status polled every 200 ms up to budgets.taskSeconds. The provider's
// waits need a job's context and the learned schedule; a one-off check
// does not.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ProxmoxApi, Upid } from '../proxmox/api.js';
import { parseUpid } from '../provider/tasks.js';

const POLL_MS = 200;

/**
 * The task's exit status (`OK`, `WARNINGS: n`, or the error); throws when
 * it does not end within `seconds`. Asked of the node its UPID names: an
 * upload runs on the node whose pveproxy received it (SPEC 16, 28).
 */
export async function waitForTask(api: ProxmoxApi, upid: Upid, seconds: number): Promise<string> {
  const deadline = Date.now() + seconds * 1000;
  const { node } = parseUpid(upid);
  for (;;) {
    const status = await api.taskStatus(node, upid);
    if (status.status === 'stopped') return status.exitstatus ?? 'unknown';
    if (Date.now() > deadline) throw new Error(`task ${upid} still running after ${seconds} s`);
    await sleep(POLL_MS);
  }
}

/** Perl's view of a task's end: OK and WARNINGS are success. */
export function taskSucceeded(exitstatus: string): boolean {
  return exitstatus === 'OK' || exitstatus.startsWith('WARNINGS');
}
