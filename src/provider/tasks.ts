// Proxmox tasks (SPEC 16): the UPID names the node that runs the task,
// `OK` and `WARNINGS: <n>` are success, anything else is a failed task.
// The process's waits (SPEC 26, waits/) answer a task on the task board
// and a VM to run on the running board; a VM's lock (waitUnlocked) is
// polled on its own.
import { PermanentError } from '../errors.js';
import { classifyTaskExit } from '../proxmox/classify.js';
import type { Upid, VmConfig } from '../proxmox/api.js';
import type { OperationContext } from './types.js';
import { beforeWrite, callOpts, logFor, logLine } from './context.js';
import type { ProviderDeps } from './deps.js';
import { classifyCall, throwIfAborted } from './errors.js';
import { pollUntil } from './waits/poll-until.js';
import { call } from './call.js';

export interface UpidParts {
  node: string;
  type: string;
  id: string;
}

export function parseUpid(upid: Upid): UpidParts {
  const parts = upid.split(':');
  if (parts[0] !== 'UPID' || parts.length < 8 || !parts[1]) {
    throw new PermanentError(`not a Proxmox task id: ${upid}`);
  }
  // Stryker disable next-line StringLiteral: a UPID of eight or more fields always has fields 5 and 6; the fallbacks are for the type checker
  return { node: parts[1], type: parts[5] ?? '', id: parts[6] ?? '' };
}

/** The cause a failed task's error carries. */
export class TaskFailure extends Error {
  override readonly name = 'TaskFailure';
  constructor(
    readonly upid: string,
    readonly node: string,
    readonly exitstatus: string,
  ) {
    super(`task ${upid} failed: ${exitstatus}`);
  }
}

const WARNINGS = /^WARNINGS: \d+$/;

/** The exit status of a failed task, found in a classified error's causes; undefined for any other error. */
export function taskExitOf(err: unknown): string | undefined {
  // Stryker disable next-line EqualityOperator: the depth bound only stops a cyclic cause chain; 8 or 9 links make no difference to a caller
  for (let current: unknown = err, depth = 0; current instanceof Error && depth < 8; depth++) {
    if (current instanceof TaskFailure) return current.exitstatus;
    current = current.cause;
  }
  return undefined;
}

export interface WaitTaskOptions {
  /** Operator words for the task: `clone of 9001 to 123`. */
  what: string;
  budgetSeconds: number;
  /** The kind its duration is learned under when not the UPID's task type (a clone: per image). */
  kind?: string;
}

export async function waitTask(
  deps: ProviderDeps,
  ctx: OperationContext,
  upid: Upid,
  options: WaitTaskOptions,
): Promise<void> {
  const { node } = parseUpid(upid);
  const what = `${options.what} (task ${upid})`;
  const exitstatus = await deps.waits.tasks.wait(ctx, node, upid, { what, budgetSeconds: options.budgetSeconds, ...(options.kind === undefined ? {} : { kind: options.kind }) });
  if (exitstatus === 'OK') return;
  if (WARNINGS.test(exitstatus)) {
    await logTaskWarnings(deps, ctx, node, upid, exitstatus, options.what);
    return;
  }
  logFor(deps, ctx).warn({ upid, exitstatus, node }, 'proxmox task failed');
  throw classifyTaskExit(exitstatus, `${options.what} failed on node ${node}`, new TaskFailure(upid, node, exitstatus));
}

/** A task that ended with warnings: its warning lines go to the job log (SPEC 16). */
async function logTaskWarnings(
  deps: ProviderDeps,
  ctx: OperationContext,
  node: string,
  upid: Upid,
  exitstatus: string,
  what: string,
): Promise<void> {
  const logger = logFor(deps, ctx);
  logger.info({ upid, exitstatus, node }, 'proxmox task ended with warnings');
  let lines: string[] = [];
  try {
    const log = await deps.api.taskLog(node, upid, callOpts(ctx));
    lines = log.map((l) => l.t).filter((t) => /^WARN(ING)?:/i.test(t));
  } catch (err) {
    // The task succeeded; a log that cannot be read must not fail it.
    logger.warn({ upid, err }, 'could not read the task log');
  }
  await logLine(ctx, `${what}: ${exitstatus}`);
  for (const line of lines) await logLine(ctx, `${what}: ${line}`);
}

/** Waits until the VM's config holds no lock and answers that config. */
export async function waitUnlocked(
  deps: ProviderDeps,
  ctx: OperationContext,
  node: string,
  vmid: number,
  budgetSeconds = deps.config.budgets.cloneSeconds,
): Promise<VmConfig> {
  return pollUntil(deps, ctx, { what: `VM ${vmid} on ${node} to be unlocked`, budgetSeconds }, async () => {
    try {
      const config = await deps.api.getConfig(node, vmid, callOpts(ctx));
      return config.lock === undefined || config.lock === '' ? config : undefined;
    } catch (err) {
      throw classifyCall(err, ctx.signal);
    }
  });
}

/**
 * Waits until `status` and `qmpstatus` are both `running` (SPEC 13 step
 * 7). The running board answers, looking at once (after a start that
 * ended OK the VM normally runs): one status/current for a VM due alone,
 * one node VM listing for several (SPEC 26).
 */
export async function waitRunning(deps: ProviderDeps, ctx: OperationContext, node: string, vmid: number): Promise<void> {
  throwIfAborted(ctx.signal);
  await deps.waits.running.wait(ctx, node, vmid, deps.config.budgets.runningSeconds);
}

/** A write that starts a task, after the lock check (SPEC 3), and the wait for its end within budgets.taskSeconds. */
export async function runTask(deps: ProviderDeps, ctx: OperationContext, what: string, write: () => Promise<Upid>): Promise<void> {
  beforeWrite(ctx);
  const upid = await call(ctx, write);
  await waitTask(deps, ctx, upid, { what, budgetSeconds: deps.config.budgets.taskSeconds });
}
