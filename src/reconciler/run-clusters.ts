// The clusters a reconcile run sweeps (SPEC 32), in the configured order,
// built once per runner: each one's share of the names, its seed listing
// schedule (its count under the cluster's own key prefix, and per process,
// so each process's first sweep lists each cluster's seed storages), and
// its pools' cidrs for the addresses seen on its VMs. The one-cluster
// form is one cluster that judges every name, with no `cluster` on its
// calls, its keys and its result as they always were.
import type { RedisClient } from '../redis-script.js';
import type { Config } from '../config/types.js';
import { allNetworks, clusterKeyPrefix, clustersOf, configForCluster, firstCluster, isMultiCluster } from '../config/clusters.js';
import { AddressPoolStore } from '../addresses/address-pool-store.js';
import { addressLeaseBook } from './address-adapter.js';
import { ownedByRecord } from './cluster-share.js';
import { clustersReport, summarizeClusters } from './cluster-report.js';
import type { ClusterOutcome } from './cluster-report.js';
import { seedListingSchedule } from './seed-schedule.js';
import { summarize } from './report.js';
import type { SweepReport, UnleasedAddressRef } from './report.js';
import type { ClusterSweep } from './sweep.js';
import type { SweepDeps } from './ports.js';

export interface SweptClusters {
  /** The several-clusters form: a cluster whose listing fails is skipped, and the result says per cluster what was done. */
  several: boolean;
  /** One run's sweeps: the deps every cluster shares, and each cluster's own; `log` is the job's. */
  sweeps(shared: SweepDeps, log: (line: string) => void, onUnleased: (seen: UnleasedAddressRef, cluster: string | undefined) => void): ClusterSweep[];
  /** The run's result, its summary lines written to `log`. */
  resultOf(outcomes: ClusterOutcome[], dryRun: boolean, startedAt: Date, finishedAt: Date, log: (line: string) => void): SweepReport;
}

export function sweptClusters(config: Config, redis: RedisClient, prefix: string): SweptClusters {
  const several = isMultiCluster(config);
  const clusters = clustersOf(config);
  const first = firstCluster(config).name;
  // Every cluster's pools: a lease is read and freed whichever cluster's VM took it.
  const store = new AddressPoolStore(redis, prefix, allNetworks(config));
  const parts = clusters.map((cluster) => {
    const view = configForCluster(config, cluster);
    return {
      name: cluster.name,
      owns: several ? ownedByRecord(cluster.name, first) : () => true,
      seedListing: seedListingSchedule(redis, clusterKeyPrefix(prefix, view.proxmox.clusterName), config.reconciler.seedListingEvery),
      addresses: addressLeaseBook(store, view.proxmox.networks),
    };
  });
  return {
    several,
    sweeps: (shared, log, onUnleased) =>
      parts.map(({ name, owns, seedListing, addresses }) => ({
        name,
        owns,
        deps: {
          ...shared,
          seedListing,
          addresses,
          onUnleasedAddress: (seen) => onUnleased(seen, several ? name : undefined),
          ...(several ? { cluster: name, log: (line: string) => log(`cluster ${name}: ${line}`) } : {}),
        },
      })),
    resultOf(outcomes, dryRun, startedAt, finishedAt, log) {
      if (!several) {
        const [only] = outcomes;
        if (only?.state !== 'swept') throw new Error('the sweep did not run');
        log(summarize(only.report));
        return only.report;
      }
      const report = clustersReport(outcomes, dryRun, startedAt, finishedAt);
      for (const line of summarizeClusters(report)) log(line);
      return report;
    },
  };
}
