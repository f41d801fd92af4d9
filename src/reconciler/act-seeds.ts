// Seeds (SPEC 5 step 3): the sweep deletes them itself, holding the name
// lock so no create uploads one meanwhile, and only after reading the
// name's desired state again under that lock. A seed left behind on
// another node than its name's VM is also looked up again by name under
// the lock: the VM must still be elsewhere and none on the seed's node.
import type { OperationContext } from '../provider/types.js';
import type { Plan } from './decide.js';
import type { FindingKind, SweepDeps } from './ports.js';
import type { SweepError, SweepReport } from './report.js';

export interface Notes {
  note(kind: FindingKind, line: string): void;
  failed(action: SweepError['action'], name: string, err: unknown): void;
}

export async function actOnSeeds(plan: Plan, deps: SweepDeps, report: SweepReport, ctx: OperationContext, notes: Notes, dryRun: boolean): Promise<void> {
  for (const ref of plan.strangerSeeds) {
    report.seeds.neverRecorded.push(ref);
    notes.note('seed_never_recorded', `left alone: seed ${ref.volid} on ${ref.node}, no VM, but its name was never recorded by this registry`);
  }

  for (const candidate of plan.orphanSeeds) {
    ctx.signal.throwIfAborted();
    const ref = candidate.ref;
    const what = ref.vmNode === undefined ? `seed ${ref.volid} on ${ref.node} (no VM named ${ref.name})` : `seed ${ref.volid} on ${ref.node} (left behind: VM ${ref.name} is on ${ref.vmNode})`;
    try {
      const outcome = await sweepSeed(candidate, deps, dryRun, ctx);
      switch (outcome) {
        case 'young':
          report.seeds.skippedYoung.push(ref);
          notes.note('orphan_seed_young', `skipped, younger than the grace period: ${what}`);
          break;
        case 'locked':
          report.seeds.skippedLocked.push(ref);
          notes.note('orphan_seed_locked', `skipped, name locked: ${what}`);
          break;
        case 'wanted':
          report.seeds.skippedWanted.push(ref);
          deps.log?.(`kept, the name is wanted again: ${what}`);
          break;
        case 'deleted':
          report.seeds.deleted.push(ref);
          notes.note('orphan_seed', `${dryRun ? 'would delete' : 'deleted'} ${what}`);
          break;
      }
    } catch (err) {
      notes.failed('delete-seed', candidate.ref.name, err);
    }
  }
}

type SeedOutcome = 'deleted' | 'young' | 'locked' | 'wanted';

async function sweepSeed(candidate: Plan['orphanSeeds'][number], deps: SweepDeps, dryRun: boolean, ctx: OperationContext): Promise<SeedOutcome> {
  if (candidate.young) return 'young';
  const name = candidate.ref.name;
  const { leftBehind, seed } = candidate;
  // Asked again at the last moment: a create accepted since the listing wants the seed.
  const wanted = async (): Promise<boolean> => {
    const entry = await deps.registry.get(name);
    if (leftBehind === undefined) return entry?.state === 'present' || (await deps.jobs.hasPendingJob(name));
    // Left behind: kept unless nothing moved (same uid present, its VM still elsewhere, none on the seed's node).
    if (entry?.state !== 'present' || entry.uid !== leftBehind.uid) return true;
    const vms = await deps.provider.findByName(name, ctx);
    return vms.some((vm) => vm.node === seed.node) || !vms.some((vm) => vm.ours === true && vm.uid === leftBehind.uid);
  };
  if (dryRun) {
    if (await deps.locks.isHeld(name)) return 'locked';
    return (await wanted()) ? 'wanted' : 'deleted';
  }
  const outcome = await deps.locks.tryWithLock(name, async (): Promise<SeedOutcome> => {
    if (await wanted()) return 'wanted';
    ctx.signal.throwIfAborted();
    await deps.provider.deleteSeed(seed, ctx);
    return 'deleted';
  });
  return outcome.ran ? outcome.value : 'locked';
}
