// Step 3 of a sweep (SPEC 5): act on the plan, or with dryRun only say
// what would be done. The sweep destroys no VM itself: it enqueues delete
// jobs carrying name and uid, which run under the name lock like any
// other (STYLE: the scheduled task enqueues, it does not do the work).
// Seeds it deletes itself (act-seeds.ts).
import type { OperationContext } from '../provider/types.js';
import type { Plan } from './decide.js';
import { actOnSeeds, type Notes } from './act-seeds.js';
import { actOnAddresses } from './act-addresses.js';
import { actOnHolds } from './act-holds.js';
import type { FindingKind, SweepDeps } from './ports.js';
import type { MissingRef, OrphanVmRef, SweepError, SweepReport } from './report.js';

export async function act(plan: Plan, deps: SweepDeps, report: SweepReport, ctx: OperationContext, dryRun: boolean): Promise<void> {
  const notes = sweepNotes(deps, report, ctx);
  noteUnknownVms(plan, report, notes);
  await actOnOrphanVms(plan, deps, report, ctx, notes, dryRun);
  await actOnSeeds(plan, deps, report, ctx, notes, dryRun);
  noteFailedCreates(plan, report, notes);
  await actOnMissing(plan, deps, report, ctx, notes, dryRun);
  await actOnExpiredLeases(plan, deps, report, ctx, notes, dryRun);
  await heldBy(plan, deps, report, ctx, notes, dryRun);
}

/**
 * The address leases and the tenants' holds alone (SPEC 29, 34): with
 * several clusters (SPEC 32) they are judged once every cluster has been
 * listed, as a VM on any of them may carry one.
 */
export async function actOnHeld(plan: Pick<Plan, 'addresses' | 'tenantHolds'>, deps: SweepDeps, report: SweepReport, ctx: OperationContext, dryRun: boolean): Promise<void> {
  await heldBy(plan, deps, report, ctx, sweepNotes(deps, report, ctx), dryRun);
}

async function heldBy(plan: Pick<Plan, 'addresses' | 'tenantHolds'>, deps: SweepDeps, report: SweepReport, ctx: OperationContext, notes: Notes, dryRun: boolean): Promise<void> {
  if (plan.addresses && deps.addresses) await actOnAddresses(plan.addresses, deps.addresses, deps, report, ctx, notes, dryRun);
  if (plan.tenantHolds && deps.tenantHolds) await actOnHolds(plan.tenantHolds, deps.tenantHolds, deps, report, ctx, notes, dryRun);
}

/**
 * The timers' backstop (SPEC 31): a lease past due with no expiry timer
 * pending (lost with a Redis failover, or never set) has its expiry run
 * here, as the timer would; so has an expired stop whose VM still runs
 * and whose stop job is gone. The expiry's script checks the lease again,
 * so a renewal since the sweep read it wins.
 */
async function actOnExpiredLeases(plan: Plan, deps: SweepDeps, report: SweepReport, ctx: OperationContext, notes: Notes, dryRun: boolean): Promise<void> {
  for (const ref of plan.expiredLeases) {
    ctx.signal.throwIfAborted();
    const what = `lease version ${ref.version} of ${ref.name} (${ref.onExpiry} at ${ref.expiresAt})`;
    try {
      // Past due: its timer; a stop recorded: its stop job (the name's current intent).
      if (ref.recorded ? await deps.jobs.hasPendingJob(ref.name) : await deps.jobs.hasPendingExpiry(ref.name, ref.version)) {
        report.leases.pending.push(ref);
        notes.note('lease_expiry_pending', `left to its pending timer or job: ${what}`);
        continue;
      }
      if (!dryRun) {
        const jobId = await deps.enqueuer.expireLease({ name: ref.name, version: ref.version });
        if (jobId === undefined) continue; // renewed or gone since the sweep read it
        ref.jobId = jobId;
      }
      report.leases.expired.push(ref);
      notes.note('lease_expired', `${dryRun ? 'would expire' : `expired as job ${ref.jobId ?? ''}:`} ${what}, past due with no timer pending`);
    } catch (err) {
      notes.failed('expire-lease', ref.name, err);
    }
  }
}

/** A finding counts for its kind and is logged; a failed action also goes in the report's errors. */
function sweepNotes(deps: SweepDeps, report: SweepReport, ctx: OperationContext): Notes {
  const note = (kind: FindingKind, line: string): void => {
    deps.onFinding?.(kind);
    deps.log?.(line);
  };
  const failed = (action: SweepError['action'], name: string, err: unknown): void => {
    ctx.signal.throwIfAborted();
    const message = err instanceof Error ? err.message : String(err);
    report.errors.push({ action, name, message });
    note('error', `${action} ${name} failed: ${message}`);
  };
  return { note, failed };
}

function noteUnknownVms(plan: Plan, report: SweepReport, notes: Notes): void {
  for (const vm of plan.unknownVms) {
    report.orphans.unknown.push(vm);
    notes.note('vm_unknown', `left alone: VM ${vm.vmid} (${vm.name ?? 'no name'}): ${vm.why}`);
  }
}

async function actOnOrphanVms(plan: Plan, deps: SweepDeps, report: SweepReport, ctx: OperationContext, notes: Notes, dryRun: boolean): Promise<void> {
  for (const { ref, young, protected: isProtected } of plan.orphanVms) {
    ctx.signal.throwIfAborted();
    const what = `orphan VM ${ref.vmid} ${ref.name} uid ${ref.uid} (${ref.reason})`;
    try {
      if (young) {
        report.orphans.skippedYoung.push(ref);
        notes.note('orphan_vm_young', `skipped, younger than the grace period: ${what}`);
      } else if (isProtected === true) {
        report.orphans.protected.push(ref);
        notes.note(
          'orphan_vm_protected',
          `left alone, protected in Proxmox: ${what}; clear its protection (qm set ${ref.vmid} --protection 0, or Options > Protection in the GUI) and the next sweep deletes it`,
        );
      } else if (await deps.locks.isHeld(ref.name)) {
        report.orphans.skippedLocked.push(ref);
        notes.note('orphan_vm_locked', `skipped, name locked: ${what}`);
      } else if (await deps.jobs.hasPendingJob(ref.name)) {
        report.orphans.skippedPending.push(ref);
        notes.note('orphan_vm_pending', `skipped, a job for the name is pending: ${what}`);
      } else {
        await deleteOrphan(ref, deps, dryRun);
        report.orphans.deleted.push(ref);
        notes.note('orphan_vm', `${dryRun ? 'would enqueue' : `enqueued job ${ref.jobId}:`} delete of ${what}`);
      }
    } catch (err) {
      notes.failed('delete-vm', ref.name, err);
    }
  }
}

function noteFailedCreates(plan: Plan, report: SweepReport, notes: Notes): void {
  for (const ref of plan.failedCreates) {
    report.missing.failedPermanent.push(ref);
    notes.note('missing_vm_failed', `left alone until a new create: present name ${ref.name} (generation ${ref.generation}) has no VM; its create failed: ${ref.reason}`);
  }
}

async function actOnMissing(plan: Plan, deps: SweepDeps, report: SweepReport, ctx: OperationContext, notes: Notes, dryRun: boolean): Promise<void> {
  for (const { ref, young } of plan.missing) {
    ctx.signal.throwIfAborted();
    const what = `present name ${ref.name} (generation ${ref.generation}) ${ref.unapplied ? 'has an in-place change no create applied' : 'has no VM'}`;
    try {
      if (young) {
        report.missing.skippedYoung.push(ref);
        notes.note('missing_vm_young', `skipped, recorded within the grace period: ${what}`);
      } else if (await deps.jobs.hasPendingJob(ref.name)) {
        continue; // its create is queued or running: nothing is missing
      } else if (await deps.locks.isHeld(ref.name)) {
        report.missing.skippedLocked.push(ref);
        notes.note('missing_vm_locked', `skipped, name locked: ${what}`);
      } else if (!deps.settings.recreateMissing) {
        report.missing.notRecreated.push(ref);
        notes.note('missing_vm', `not re-enqueued (reconciler.recreateMissing is off): ${what}`);
      } else {
        await createAgain(ref, deps, dryRun);
        report.missing.reenqueued.push(ref);
        notes.note('missing_vm', `${dryRun ? 'would re-enqueue' : `re-enqueued as job ${ref.jobId}:`} create; ${what}`);
      }
    } catch (err) {
      notes.failed('create', ref.name, err);
    }
  }
}

async function deleteOrphan(ref: OrphanVmRef, deps: SweepDeps, dryRun: boolean): Promise<void> {
  if (dryRun) return;
  ref.jobId = await deps.enqueuer.enqueueDelete({
    name: ref.name,
    uid: ref.uid,
    reason: `reconciler: orphan (${ref.reason})`,
    seenGeneration: ref.generation,
    ...(ref.reason === 'abandoned claim' ? { nameGoes: true as const } : {}),
    ...(deps.cluster === undefined ? {} : { cluster: deps.cluster }),
  });
}

async function createAgain(ref: MissingRef, deps: SweepDeps, dryRun: boolean): Promise<void> {
  if (dryRun) return;
  ref.jobId = await deps.enqueuer.enqueueCreate({ name: ref.name, generation: ref.generation });
}
