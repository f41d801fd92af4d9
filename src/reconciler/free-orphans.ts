// What the sweep frees itself when no VM of ours carries it and its name is
// not present with its uid (SPEC 5 step 3): an address lease (SPEC 29), a
// tenant's quota hold (SPEC 34). A Redis write, no Proxmox call; what a
// pending job or the name's lock holder will end is left to it. The
// freeing script checks the name again, so one recorded since is kept.
import type { OperationContext } from '../provider/types.js';
import type { Notes } from './act-seeds.js';
import type { FindingKind, SweepDeps } from './ports.js';
import type { SweepError } from './report.js';

/** One kind of thing the sweep frees, and where its report and notes go. */
export interface Orphans<T extends { name: string; uid: string }> {
  /** It in words, for the notes. */
  describe(item: T): string;
  /** Frees it; undefined when the script kept it (claimed or gone since the sweep read it). */
  free(name: string, uid: string): Promise<unknown>;
  pending: T[];
  freed: T[];
  pendingKind: FindingKind;
  freedKind: FindingKind;
  failedAction: SweepError['action'];
}

export async function freeOrphans<T extends { name: string; uid: string }>(items: readonly T[], orphans: Orphans<T>, deps: SweepDeps, ctx: OperationContext, notes: Notes, dryRun: boolean): Promise<void> {
  for (const item of items) {
    ctx.signal.throwIfAborted();
    const what = orphans.describe(item);
    try {
      if ((await deps.locks.isHeld(item.name)) || (await deps.jobs.hasPendingJob(item.name))) {
        orphans.pending.push(item);
        notes.note(orphans.pendingKind, `left to the name's pending or running job: ${what}, no VM and no present name`);
        continue;
      }
      if (!dryRun && (await orphans.free(item.name, item.uid)) === undefined) continue;
      orphans.freed.push(item);
      notes.note(orphans.freedKind, `${dryRun ? 'would free' : 'freed'} ${what}: no VM of ours carries it and the name is not present with it`);
    } catch (err) {
      notes.failed(orphans.failedAction, item.name, err);
    }
  }
}
