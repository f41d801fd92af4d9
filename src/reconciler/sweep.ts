// One reconcile sweep (SPEC 5): take stock, decide, act, report; the
// address pools' leases too (SPEC 29), and the tenants' holds (SPEC 34).
import { takeInventory } from './inventory.js';
import { decide } from './decide.js';
import { planAddresses } from './decide-addresses.js';
import { planHolds } from './decide-holds.js';
import { act } from './act.js';
import { countsOf, emptyReport } from './report.js';
import type { OperationContext } from '../provider/types.js';
import type { SweepDeps } from './ports.js';
import type { SweepReport } from './report.js';

export interface SweepOptions {
  /** Report what would be done and change nothing. */
  dryRun: boolean;
  /**
   * Asked for by hand (the CLI), not by the schedule: it lists the seed
   * storages whatever reconciler.seedListingEvery says, so an operator sees
   * and sweeps every seed at once. A real one moves the backstop's count
   * back to 0 as any listing sweep does; a dry one leaves it.
   */
  byHand?: boolean;
  /** Ends the sweep between steps and its Proxmox calls (job cancelled, sweep lock lost). */
  signal?: AbortSignal;
  /** The reconcile job's id and logger, so the sweep's provider lines carry the job id (SPEC 9). */
  job?: Pick<OperationContext, 'jobId' | 'logger'>;
}

export async function sweep(deps: SweepDeps, options: SweepOptions): Promise<SweepReport> {
  const signal = options.signal ?? new AbortController().signal;
  const ctx: OperationContext = { ...options.job, signal, ...(deps.log ? { log: deps.log } : {}) };
  const startedAt = deps.clock.now();
  const report = emptyReport(options.dryRun, startedAt);

  // The address leases before the registry: a lease is taken with its
  // name's record (SPEC 29), so every lease read here has its name in the
  // registry read after it, unless that name has been deleted since.
  const leases = await deps.addresses?.list();
  // The same for the tenants' holds, taken with the record too (SPEC 34).
  const holds = await deps.tenantHolds?.list();
  // The registry is read before Proxmox: a VM created after this read is
  // younger than the grace period, so it cannot be mistaken for an orphan.
  const [entries, generations] = await Promise.all([deps.registry.listAll(), deps.registry.knownGenerations()]);
  const listStorages = deps.seedListing === undefined || options.byHand === true || (await deps.seedListing.due(options.dryRun));
  const inventory = await takeInventory(deps.provider, entries, generations, ctx, listStorages);
  if (listStorages) await deps.seedListing?.listed(options.dryRun);
  const plan = decide(inventory, deps.clock.now(), deps.settings.graceSeconds);
  const book = deps.addresses;
  if (leases && book) plan.addresses = planAddresses(inventory, leases, (address) => book.poolOf(address));
  if (holds) plan.tenantHolds = planHolds(inventory, holds);
  report.listed = plan.listed;
  report.ours = plan.ours;
  report.seeds.listed = inventory.seeds.length;
  report.seeds.storagesListed = inventory.seedsListed;
  report.seeds.foundByListing = inventory.unrecordedSeeds.map(({ name, node, volid }) => ({ name, node, volid }));

  await act(plan, deps, report, ctx, options.dryRun);
  report.counts = countsOf(report);
  report.finishedAt = deps.clock.now().toISOString();
  return report;
}
