// SPEC 13: a create that finds a VM of ours running converges its cores
// and memory in place (SPEC 2: the caller changed only those, or grew the
// disk, which create.ts's resize step does live). Proxmox takes memory
// live only with the `memory` hotplug feature and NUMA, and never cores:
// what it cannot hotplug it holds in `pending` until the next start, so
// the write is followed by a read of .../pending and a VM with a held
// value is stopped and started (docs/decisions.md, "In-place changes").
import type { PendingEntry, VmConfig } from '../proxmox/api.js';
import { isApiError } from '../proxmox/api-error.js';
import type { CreateSpec, InPlaceField, OperationContext } from './types.js';
import { beforeWrite, callOpts, logLine } from './context.js';
import type { ProviderDeps } from './deps.js';
import { jobSeam } from './job-seam.js';
import type { FoundVm } from './ownership.js';
import { hasTag } from './tags.js';
import { runTask } from './tasks.js';
import { bootDisk, diskSizeBytes, GIB } from './vm-config.js';

/** The config key each field of the running config is written to. */
const CONFIG_KEYS = [
  ['cores', 'cores'],
  ['memoryMiB', 'memory'],
] as const;

export interface RunningChange {
  /** Fields whose value the VM ran with differs from the spec's. */
  changed: InPlaceField[];
  /** Config keys Proxmox holds for the next start: the VM must be restarted to run with them. */
  held: string[];
}

/** `2048` or, as memory may read in 9.x, `current=2048`. */
function numberOf(value: string | number | undefined): number | undefined {
  const match = /^(?:current=)?(\d+)/.exec(String(value ?? ''));
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/** The boot disk, known and smaller than the spec's: SPEC 13 step 6 grows it. */
export function diskShort(spec: CreateSpec, config: VmConfig): boolean {
  const disk = bootDisk(config);
  const have = disk === undefined ? undefined : diskSizeBytes(config[disk]);
  return have !== undefined && have < spec.diskGiB * GIB;
}

/**
 * What a create changes on a VM of ours that is not running: nothing on
 * one never configured (a clone without our tag, SPEC 11: the template's
 * sizes are no change the caller asked for), else each field whose value
 * in the config differs from the spec's.
 */
export function configChanges(spec: CreateSpec, config: VmConfig, tag: string): InPlaceField[] {
  if (!hasTag(config.tags, tag)) return [];
  const changed: InPlaceField[] = CONFIG_KEYS.filter(([field, key]) => numberOf(config[key]) !== spec[field]).map(([field]) => field);
  return diskShort(spec, config) ? [...changed, 'diskGiB'] : changed;
}

async function pendingOf(deps: ProviderDeps, ctx: OperationContext, vm: FoundVm): Promise<Map<string, PendingEntry>> {
  const entries = await jobSeam(deps, ctx).pendingConfig(vm.node, vm.vmid);
  return new Map(entries.map((entry) => [entry.key, entry]));
}

/**
 * Writes the spec's cores and memory where the VM would not run with them
 * after its next start, and says what changed and what Proxmox holds. A
 * retry after the write finds the values held and writes nothing again.
 */
export async function changeRunningVm(deps: ProviderDeps, ctx: OperationContext, spec: CreateSpec, vm: FoundVm): Promise<RunningChange> {
  const before = await pendingOf(deps, ctx, vm);
  const changed: InPlaceField[] = [];
  const params: Record<string, number> = {};
  for (const [field, key] of CONFIG_KEYS) {
    const entry = before.get(key);
    const running = numberOf(entry?.value);
    const next = entry?.pending === undefined ? running : numberOf(entry.pending);
    if (running !== spec[field]) changed.push(field);
    if (next !== spec[field]) params[key] = spec[field];
  }
  const written = Object.keys(params).length > 0;
  if (written) {
    beforeWrite(ctx);
    try {
      await jobSeam(deps, ctx).putConfig(vm.node, vm.vmid, params);
    } catch (err) {
      await takeBackRefused(deps, ctx, vm, before, refusedKeys(err));
      throw err;
    }
    await logLine(ctx, `configured running VM ${vm.vmid}: ${Object.entries(params).map(([k, v]) => `${k}=${v}`).join(' ')}`);
  }
  if (changed.length === 0) return { changed, held: [] };
  const after = written ? await pendingOf(deps, ctx, vm) : before;
  const held = CONFIG_KEYS.map(([, key]) => key).filter((key) => after.get(key)?.pending !== undefined);
  const live = CONFIG_KEYS.filter(([field, key]) => changed.includes(field) && !held.includes(key)).map(([, key]) => key);
  if (live.length > 0) await logLine(ctx, `VM ${vm.vmid} took ${live.join(', ')} live (hotplug)`);
  return { changed, held };
}

/** The keys a 400 (`Parameter verification failed.`) names: a hotplug refused answers so (src/sim/hotplug.ts). */
function refusedKeys(err: unknown): string[] {
  const cause = err instanceof Error ? err.cause : undefined;
  return isApiError(cause) && cause.status === 400 ? Object.keys(cause.errors ?? {}) : [];
}

/**
 * Proxmox leaves a value whose hotplug failed pending, for the next start
 * to take (memory below what hotplug needs would then fail that start):
 * the running value is written back, which drops it (cleanup_pending).
 */
async function takeBackRefused(deps: ProviderDeps, ctx: OperationContext, vm: FoundVm, before: Map<string, PendingEntry>, refused: readonly string[]): Promise<void> {
  const params: Record<string, number> = {};
  for (const [, key] of CONFIG_KEYS) {
    const running = numberOf(before.get(key)?.value);
    if (refused.includes(key) && running !== undefined) params[key] = running;
  }
  if (Object.keys(params).length === 0) return;
  await logLine(ctx, `Proxmox refused to hotplug ${Object.keys(params).join(', ')} on running VM ${vm.vmid}; writing back ${Object.entries(params).map(([k, v]) => `${k}=${v}`).join(' ')} so its next start does not take the refused value`);
  beforeWrite(ctx);
  await jobSeam(deps, ctx).putConfig(vm.node, vm.vmid, params);
}

/**
 * A stop and a start, which work whatever the guest (a reboot needs ACPI
 * or the agent to shut it down): the VM then runs with what was held.
 */
export async function restartForHeld(deps: ProviderDeps, ctx: OperationContext, vm: FoundVm, held: readonly string[]): Promise<void> {
  await logLine(ctx, `VM ${vm.vmid}: Proxmox applies ${held.join(', ')} at the next start; stopping and starting it`);
  await runTask(deps, ctx, `stop of VM ${vm.vmid}`, () => deps.api.stop(vm.node, vm.vmid, callOpts(ctx)));
  await runTask(deps, ctx, `start of VM ${vm.vmid}`, () => deps.api.start(vm.node, vm.vmid, callOpts(ctx)));
  await logLine(ctx, `restarted VM ${vm.vmid}; it runs with its new ${held.join(', ')}`);
}
