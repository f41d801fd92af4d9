// One reconcile sweep (SPEC 5): take stock, decide, act, report; the
// address pools' leases too (SPEC 29), and the tenants' holds (SPEC 34).
// With several clusters (SPEC 32) each cluster has its turn in the
// configured order, judging only its own names (cluster-share.ts); the
// leases and holds are judged once every cluster has been listed.
import { DEFAULT_CLUSTER } from '../config/clusters.js';
import { countsOf } from './report.js';
import type { OperationContext } from '../provider/types.js';
import { namesElsewhere, ownedReader } from './cluster-share.js';
import type { ClusterShare } from './cluster-share.js';
import { sweepCluster } from './sweep-cluster.js';
import { sweepHeld } from './sweep-held.js';
import type { SweptCluster } from './sweep-held.js';
import type { SweepDeps } from './ports.js';
import type { SweepReport } from './report.js';
import type { ClusterOutcome } from './cluster-report.js';

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

/** One cluster to sweep: its share of the names, and its provider, seed schedule, pools and `cluster` (several-clusters form). */
export interface ClusterSweep extends ClusterShare {
  /** Its registry is the whole registry: the sweep cuts each cluster's share itself. */
  deps: SweepDeps;
}

export interface ClustersSweepOptions extends SweepOptions {
  /** Several clusters (SPEC 32): a cluster whose listing fails is skipped and the others swept; otherwise the failure fails the sweep. */
  skipUnlisted: boolean;
  /** Lines of the whole run, not of one cluster. */
  log?: (line: string) => void;
  /** A cluster skipped, and why (its listing failed). */
  onSkipped?: (cluster: string, reason: string) => void;
}

/** The one-cluster sweep: its listing failing fails it. */
export async function sweep(deps: SweepDeps, options: SweepOptions): Promise<SweepReport> {
  const [outcome] = await sweepClusters([{ name: DEFAULT_CLUSTER, owns: () => true, deps }], { ...options, skipUnlisted: false });
  if (outcome?.state !== 'swept') throw new Error('the sweep did not run');
  return outcome.report;
}

export async function sweepClusters(clusters: readonly ClusterSweep[], options: ClustersSweepOptions): Promise<ClusterOutcome[]> {
  const [first] = clusters;
  if (first === undefined) throw new Error('no cluster to sweep');
  const signal = options.signal ?? new AbortController().signal;
  // The address leases before the registry: a lease is taken with its
  // name's record (SPEC 29), so every lease read here has its name in the
  // registry read after it, unless that name has been deleted since.
  // The books and the registry are every cluster's: read once.
  const leases = await first.deps.addresses?.list();
  // The same for the tenants' holds, taken with the record too (SPEC 34).
  const holds = await first.deps.tenantHolds?.list();
  // The registry is read before Proxmox: a VM created after this read is
  // younger than the grace period, so it cannot be mistaken for an orphan.
  const [entries, generations] = await Promise.all([first.deps.registry.listAll(), first.deps.registry.knownGenerations()]);

  const outcomes: ClusterOutcome[] = [];
  const swept: SweptCluster[] = [];
  const skipped: string[] = [];
  for (const cluster of clusters) {
    signal.throwIfAborted();
    const deps: SweepDeps = { ...cluster.deps, registry: ownedReader(cluster.deps.registry, cluster.owns) };
    const ctx: OperationContext = { ...options.job, signal, ...(deps.log ? { log: deps.log } : {}), ...(deps.cluster === undefined ? {} : { cluster: deps.cluster }) };
    const names = { entries: entries.filter(cluster.owns), generations, elsewhere: namesElsewhere(entries, cluster, clusters) };
    const turn = await sweepCluster(deps, names, { dryRun: options.dryRun, byHand: options.byHand === true, skipUnlisted: options.skipUnlisted }, ctx);
    if (turn.state === 'skipped') {
      skipped.push(cluster.name);
      outcomes.push({ name: cluster.name, state: 'skipped', reason: turn.reason });
      options.log?.(`cluster ${cluster.name} skipped, nothing of its names judged: ${turn.reason}`);
      options.onSkipped?.(cluster.name, turn.reason);
      continue;
    }
    swept.push({ share: cluster, deps, ctx, report: turn.report, inventory: turn.inventory });
    outcomes.push({ name: cluster.name, state: 'swept', report: turn.report });
  }

  await sweepHeld(swept, clusters, { ...(leases ? { leases } : {}), ...(holds ? { holds } : {}), entries: new Map(entries.map((e) => [e.name, e])) }, skipped, options.dryRun, options.log);
  for (const { deps, report } of swept) {
    report.counts = countsOf(report);
    report.finishedAt = deps.clock.now().toISOString();
  }
  return outcomes;
}
