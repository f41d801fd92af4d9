// Create (SPEC 13). Every step is safe to repeat, so a create that was
// killed after any step and runs again finds its VM by name (or at its
// VMID, mid-clone) and goes on from there: never a second clone.
import { createSpecFields } from '../job-table/create.schema.js';
import { limitsFromConfig, validateFields } from '../job-table/fields.js';
import type { NodeConfig } from '../config/types.js';
import { buildSeed } from '../nocloud/seed.js';
import type { CreateResult, CreateSpec, CreateStep, InPlaceField, OperationContext } from './types.js';
import { beforeWrite, logLine } from './context.js';
import type { ProviderDeps } from './deps.js';
import { permanent } from './errors.js';
import { waitAddress } from './address-wait.js';
import { jobSeam } from './job-seam.js';
import { cloneOrAdopt } from './clone.js';
import { configParams } from './configure.js';
import { providerId } from './vmid.js';
import { parseMark } from './mark.js';
import { findOurs, type FoundVm } from './ownership.js';
import { changeRunningVm, configChanges, diskShort, restartForHeld } from './in-place.js';
import { chooseNode, configuredNode, requireConfiguredNode, requireImage, requireTemplate } from './placement.js';
import { seedFileName } from '../nocloud/seed.js';
import { seedVolid } from './seeds.js';
import { waitRunning, waitTask } from './tasks.js';
import { storageRefusal } from './storage-refusal.js';
import { checkTemplate } from './template.js';
import { templateFor } from './template-ref.js';
import { bootDisk, diskSizeBytes, GIB } from './vm-config.js';
import type { ResolvedImage } from '../config/images.js';
import { refuseUnready } from './ready-refusal.js';
import { memberUser, seedInputOf } from './seed-input.js';
import { awaitReadiness, type AgentlessReadiness } from './ready-wait.js';

async function reached(ctx: OperationContext, step: CreateStep): Promise<void> {
  await ctx.progress?.(step);
}

/**
 * The bounds of the create's field table (src/job-table/create.schema.ts), the same
 * ones the producer, the API and the worker apply (SPEC 1, 24): a spec
 * that got here past them all is refused before any Proxmox call.
 */
export function validateCreateSpec(deps: Pick<ProviderDeps, 'config'>, spec: CreateSpec): void {
  // The lease, the generation and the pool are the job's, not fields a create is given (ready-refusal.ts checks the lease).
  const { address: _address, generation: _generation, poolMember: _poolMember, ...fields } = spec;
  // SPEC 32: a cluster's provider takes its own cluster's creates only (another's is a routing mistake), so that is the check of the field.
  const here = deps.config.proxmox.clusterName;
  if (here !== undefined && spec.cluster !== undefined && spec.cluster !== here) throw permanent(`create ${spec.name}: its cluster is ${spec.cluster}, but it reached cluster ${here}'s provider`);
  if (here !== undefined) delete fields.cluster;
  const checked = validateFields(createSpecFields, fields, limitsFromConfig(deps.config));
  if (!checked.ok) throw permanent(`create ${spec.name}: ${checked.errors.map((e) => `${e.field} ${e.message}`).join('; ')}`);
}

export async function createVm(deps: ProviderDeps, spec: CreateSpec, ctx: OperationContext): Promise<CreateResult> {
  validateCreateSpec(deps, spec);
  const image = requireImage(deps, spec.image);
  refuseUnready(deps, spec, image);
  // SPEC 30: a member's seed makes its image user's ~/.ssh; an image without one is refused before the clone.
  if (spec.poolMember !== undefined) memberUser(deps, spec, image.name);
  const { vm, fresh } = await foundOrCloned(deps, ctx, spec, image);
  await reached(ctx, 'cloned');
  const node = configuredNode(deps, vm.node);
  if (!node) throw permanent(`VM ${vm.vmid} of ${spec.name} is on node ${vm.node}, which is not configured; add it or delete the VM`);

  // A VM of ours that runs was configured and started before: only an in-place change (SPEC 2) and the waits are left.
  const running = !fresh && (await jobSeam(deps, ctx).statusCurrent(vm.node, vm.vmid)).status === 'running';
  const brought = running ? await changeInPlace(deps, ctx, spec, vm) : await setUpAndStart(deps, ctx, spec, image, node, vm, fresh);
  await waitRunning(deps, ctx, vm.node, vm.vmid);
  await logLine(ctx, `VM ${vm.vmid} is running`);
  await reached(ctx, 'running');

  const result = resultOf(deps, spec, image, node, vm, brought.changed);
  if (!spec.waitForAddress) return result;
  if (image.readiness !== 'agent') return whenReady(deps, ctx, spec, { mode: image.readiness, port: image.readinessPort }, result, vm);
  return withAddress(deps, ctx, spec, result, vm, { freshBoot: !running || brought.restarted, image: image.name, bootAt: brought.bootAt });
}

/** Steps 1 to 3: ours already (adopted, going on from wherever it got to), or cloned now; `fresh` when this create cloned it. */
async function foundOrCloned(deps: ProviderDeps, ctx: OperationContext, spec: CreateSpec, image: ResolvedImage): Promise<{ vm: FoundVm; fresh: boolean }> {
  const named = spec.node === undefined ? undefined : requireConfiguredNode(deps, spec.node);
  // 1. Ours already? Adopt it and go on from wherever it got to.
  const found = await findOurs(deps, ctx, spec);
  if (found) {
    await logLine(ctx, `found VM ${found.vmid} of ours on ${found.node}; going on from where it stopped`);
    return { vm: found, fresh: false };
  }
  const node = named ?? (await chooseNode(deps, ctx, image));
  const template = requireTemplate(deps, image, node);
  // SPEC 29: a VM of this name and uid made before (deleted since, re-created by the sweep) phoned home then; this guest must itself.
  await deps.readySignals?.forget(spec.name, spec.uid);
  // 2. The image's template for that node, on this path only.
  await checkTemplate(deps, ctx, template, spec.diskGiB);
  // 3. Clone, or adopt what holds our VMID.
  const outcome = await cloneOrAdopt(deps, ctx, spec, node, template);
  return { vm: outcome.vm, fresh: outcome.cloned };
}

/** How the VM came to run: the fields changed in place, whether it was restarted, when its start (or restart) task ended. */
interface BroughtUp {
  changed: InPlaceField[];
  restarted: boolean;
  /** The boot time is learned from there (SPEC 26); undefined when this create neither started nor restarted it. */
  bootAt: number | undefined;
}

/** A VM of ours that runs: an in-place change (SPEC 2), the disk grown, a restart for what only a restart applies. */
async function changeInPlace(deps: ProviderDeps, ctx: OperationContext, spec: CreateSpec, vm: FoundVm): Promise<BroughtUp> {
  const change = await changeRunningVm(deps, ctx, spec, vm);
  const grow = diskShort(spec, vm.config);
  const changed: InPlaceField[] = grow ? [...change.changed, 'diskGiB'] : change.changed;
  if (changed.length === 0) await logLine(ctx, `VM ${vm.vmid} already runs; seed, config and disk were done before`);
  for (const step of ['seeded', 'configured'] as const) await reached(ctx, step);
  if (grow) await growBootDisk(deps, ctx, spec, vm);
  await reached(ctx, 'resized');
  let bootAt: number | undefined;
  if (change.held.length > 0) {
    await restartForHeld(deps, ctx, vm, change.held);
    bootAt = deps.now().getTime();
    await reached(ctx, 'restarted');
  }
  await reached(ctx, 'started');
  return { changed, restarted: bootAt !== undefined, bootAt };
}

/** Steps 4 to 7 (up to the start task's end) on a VM that does not run: seed, config, disk, start. An adopted one reports the fields its config differed in. */
async function setUpAndStart(deps: ProviderDeps, ctx: OperationContext, spec: CreateSpec, image: ResolvedImage, node: NodeConfig, vm: FoundVm, fresh: boolean): Promise<BroughtUp> {
  const changed = fresh ? [] : configChanges(spec, vm.config, deps.config.proxmox.tag);
  await uploadSeed(deps, ctx, spec, image, node, vm);
  await reached(ctx, 'seeded');
  await configure(deps, ctx, spec, node, vm);
  await reached(ctx, 'configured');
  await growBootDisk(deps, ctx, spec, vm);
  await reached(ctx, 'resized');
  await start(deps, ctx, vm);
  const bootAt = deps.now().getTime();
  await reached(ctx, 'started');
  return { changed, restarted: false, bootAt };
}

function resultOf(deps: ProviderDeps, spec: CreateSpec, image: ResolvedImage, node: NodeConfig, vm: FoundVm, changed: InPlaceField[]): CreateResult {
  const createdAt = parseMark(vm.config.description)?.writtenAtCreate ?? deps.now().toISOString();
  const source = templateFor(image, node)?.source;
  return {
    providerId: providerId(vm.vmid, spec.name),
    vmid: vm.vmid,
    node: vm.node,
    uid: spec.uid,
    state: 'Provisioning',
    createdAt,
    image: image.name,
    ...(source === undefined ? {} : { source }),
    ...(changed.length > 0 ? { changed } : {}),
    // SPEC 29: a leased address is the VM's from its first boot, known before it.
    ...(spec.address === undefined ? {} : { address: spec.address.address }),
  };
}

/** SPEC 29: readiness `phone-home`, `tcp` or `none`, after the VM runs: the result with the lease's address (or the one agent read's). */
async function whenReady(
  deps: ProviderDeps,
  ctx: OperationContext,
  spec: CreateSpec,
  readiness: { mode: AgentlessReadiness; port: number },
  result: CreateResult,
  vm: FoundVm,
): Promise<CreateResult> {
  const ready = await awaitReadiness(deps, ctx, spec, readiness, { node: vm.node, vmid: vm.vmid, net0: netOf(vm.config) });
  await reached(ctx, 'address');
  return { ...result, state: 'Running', ...(ready.address === undefined ? {} : { address: ready.address }) };
}

/** When the spec waits for an address, after the VM runs: the address wait (SPEC 1, 10, 26), and the result with the address its guest agent reports. */
async function withAddress(
  deps: ProviderDeps,
  ctx: OperationContext,
  spec: CreateSpec,
  result: CreateResult,
  vm: FoundVm,
  boot: { freshBoot: boolean; image: string; bootAt: number | undefined },
): Promise<CreateResult> {
  const { freshBoot, image, bootAt } = boot;
  const leased = spec.address?.address;
  const target = { node: vm.node, vmid: vm.vmid, net0: netOf(vm.config), freshBoot, image, ...(bootAt === undefined ? {} : { bootAt }), ...(leased === undefined ? {} : { leased }) };
  const seen = await waitAddress(deps, ctx, spec, target);
  // Stryker disable next-line StringLiteral: waitAddress answers only with an address (Running); ?? '' is for the type checker
  await logLine(ctx, `VM ${vm.vmid} reports address ${seen.address ?? ''}`);
  await reached(ctx, 'address');
  // Stryker disable next-line ConditionalExpression: waitAddress answers only with an address, so the empty branch is never taken
  return { ...result, state: seen.state, ...(seen.address !== undefined ? { address: seen.address } : {}) };
}

function netOf(config: FoundVm['config']): string | undefined {
  return typeof config.net0 === 'string' ? config.net0 : undefined;
}

/**
 * 4. The seed, over any file of that name (F12); its task runs on the node
 * of its UPID. Recorded first (SPEC 5, 26): a crash after the record leaves
 * a record and perhaps a seed, never a seed the sweep has no record of.
 */
async function uploadSeed(deps: ProviderDeps, ctx: OperationContext, spec: CreateSpec, image: ResolvedImage, node: NodeConfig, vm: FoundVm): Promise<void> {
  const vmid = vm.vmid;
  const source = buildSeed(await seedInputOf(deps, spec, image, vm));
  beforeWrite(ctx);
  const volid = seedVolid(node.isoStorage, spec.name);
  await deps.seedRecords?.intend({ node: node.name, storage: node.isoStorage, volid, name: spec.name, uid: spec.uid, vmid, at: deps.now().toISOString() });
  const upid = await jobSeam(deps, ctx).upload(node.name, node.isoStorage, seedFileName(spec.name), source).catch((err: unknown) => {
    throw (ctx.signal.aborted ? undefined : storageRefusal(deps, node, err)) ?? err;
  });
  await waitTask(deps, ctx, upid, { what: `upload of ${seedFileName(spec.name)} to ${node.isoStorage}`, budgetSeconds: deps.config.budgets.taskSeconds });
  await logLine(ctx, `uploaded ${volid} (${source.size} bytes) on ${node.name}`);
}

/** 5. One synchronous config write. */
async function configure(deps: ProviderDeps, ctx: OperationContext, spec: CreateSpec, node: NodeConfig, vm: FoundVm): Promise<void> {
  const params = configParams(spec, node, vm.config, deps.config.proxmox.tag, seedVolid(node.isoStorage, spec.name), deps.config.proxmox.clusterName);
  beforeWrite(ctx);
  await jobSeam(deps, ctx).putConfig(vm.node, vm.vmid, params).catch((err: unknown) => {
    // SPEC 28: the seed's storage went disabled between the upload and this write.
    throw (ctx.signal.aborted ? undefined : storageRefusal(deps, node, err)) ?? err;
  });
  await logLine(ctx, `configured VM ${vm.vmid}: ${Object.entries(params).map(([k, v]) => `${k}=${v}`).join(' ')}`);
}

/** 6. Grow, never shrink, the boot disk: the first in the boot order that is not ide2 (F19, F20). */
async function growBootDisk(deps: ProviderDeps, ctx: OperationContext, spec: CreateSpec, vm: FoundVm): Promise<void> {
  const disk = bootDisk(vm.config);
  const have = disk === undefined ? undefined : diskSizeBytes(vm.config[disk]);
  if (disk === undefined || have === undefined) {
    await logLine(ctx, `VM ${vm.vmid}: no boot disk with a known size; not resized`);
    return;
  }
  if (have >= spec.diskGiB * GIB) {
    await logLine(ctx, `VM ${vm.vmid}: ${disk} is already ${(have / GIB).toFixed(1)} GiB; not resized`);
    return;
  }
  beforeWrite(ctx);
  const upid = await jobSeam(deps, ctx).resize(vm.node, vm.vmid, disk, `${spec.diskGiB}G`);
  await waitTask(deps, ctx, upid, { what: `resize of ${disk} of VM ${vm.vmid} to ${spec.diskGiB}G`, budgetSeconds: deps.config.budgets.taskSeconds });
  await logLine(ctx, `grew ${disk} of VM ${vm.vmid} to ${spec.diskGiB} GiB`);
}

/** 7. Start; a start queues behind a lock (F3). */
async function start(deps: ProviderDeps, ctx: OperationContext, vm: FoundVm): Promise<void> {
  beforeWrite(ctx);
  const upid = await jobSeam(deps, ctx).start(vm.node, vm.vmid);
  await waitTask(deps, ctx, upid, { what: `start of VM ${vm.vmid}`, budgetSeconds: deps.config.budgets.taskSeconds });
  await logLine(ctx, `started VM ${vm.vmid}`);
}
