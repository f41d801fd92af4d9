// A reconcile job's result with several clusters (SPEC 1, 5, 32): a
// SweepReport of the whole run (every swept cluster's lists one after the
// other, its numbers added up), so what reads a sweep's report reads it as
// it is, and per cluster in the configured order its own report, or why it
// was skipped. The one-cluster form's result is its one SweepReport, with
// no `clusters`, as it always was.
import { countsOf, emptyReport, summarize } from './report.js';
import type { SweepReport } from './report.js';

export type ClusterOutcome = { name: string; state: 'swept'; report: SweepReport } | { name: string; state: 'skipped'; reason: string };

export interface ClustersReport extends SweepReport {
  clusters: ClusterOutcome[];
}

export function clustersReport(outcomes: ClusterOutcome[], dryRun: boolean, startedAt: Date, finishedAt: Date): ClustersReport {
  const whole = emptyReport(dryRun, startedAt);
  for (const outcome of outcomes) {
    if (outcome.state !== 'swept') continue;
    const { report } = outcome;
    whole.listed += report.listed;
    whole.ours += report.ours;
    whole.seeds.listed += report.seeds.listed;
    whole.seeds.storagesListed ||= report.seeds.storagesListed;
    addInto(whole.orphans, report.orphans);
    addInto(whole.seeds, report.seeds);
    addInto(whole.missing, report.missing);
    addInto(whole.leases, report.leases);
    addInto(whole.addresses, report.addresses);
    addInto(whole.tenantHolds, report.tenantHolds);
    whole.errors.push(...report.errors);
  }
  whole.counts = countsOf(whole);
  whole.finishedAt = finishedAt.toISOString();
  return { ...whole, clusters: outcomes };
}

/** Each list of `from` appended to the same list of `to`. */
function addInto<T extends object>(to: T, from: T): void {
  for (const [key, value] of Object.entries(from)) {
    const list = (to as Record<string, unknown>)[key];
    if (Array.isArray(value) && Array.isArray(list)) list.push(...(value as unknown[]));
  }
}

/** One line per cluster, for the job log. */
export function summarizeClusters(report: ClustersReport): string[] {
  return report.clusters.map((outcome) =>
    outcome.state === 'swept' ? `cluster ${outcome.name}: ${summarize(outcome.report)}` : `cluster ${outcome.name}: skipped, nothing of its names judged: ${outcome.reason}`,
  );
}
