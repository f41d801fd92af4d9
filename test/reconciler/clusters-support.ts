// Several clusters (SPEC 32) for the sweep's tests: one ProviderDouble per
// cluster behind a router that picks it by the call's ctx.cluster (as part
// A's clusterRoutedProvider does, the first cluster's when none is named),
// a cluster that cannot be reached, and in-memory address and hold books.
import type { KnownVm, ListedVm, OperationContext, SeedIso } from '../../src/provider/types.js';
import { ownedByRecord } from '../../src/reconciler/cluster-share.js';
import type { AddressLeaseBook, LeasedAddress, SeedListingSchedule, SweepProvider } from '../../src/reconciler/ports.js';
import type { TenantHoldRef } from '../../src/reconciler/report.js';
import type { ClusterSweep } from '../../src/reconciler/sweep.js';
import { ProviderDouble } from './support.js';
import type { World } from './support.js';

/** Every listing refused, as a cluster whose API cannot be reached. */
export class UnreachableDouble extends ProviderDouble {
  reachable = false;
  private refuse<T>(answer: () => Promise<T>): Promise<T> {
    return this.reachable ? answer() : Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:8006'));
  }
  override listTaggedOrNamed(names: string[], ctx: OperationContext, known?: readonly KnownVm[]): Promise<ListedVm[]> {
    return this.refuse(() => super.listTaggedOrNamed(names, ctx, known));
  }
  override listSeeds(ctx: OperationContext): Promise<SeedIso[]> {
    return this.refuse(() => super.listSeeds(ctx));
  }
  override listRecordedSeeds(ctx: OperationContext): Promise<SeedIso[]> {
    return this.refuse(() => super.listRecordedSeeds(ctx));
  }
}

export class RouterDouble implements SweepProvider {
  /** The cluster each call went to, in order. */
  routed: string[] = [];
  constructor(
    readonly byCluster: ReadonlyMap<string, ProviderDouble>,
    readonly first: string,
  ) {}
  private of(ctx: OperationContext): ProviderDouble {
    const name = ctx.cluster ?? this.first;
    this.routed.push(name);
    const provider = this.byCluster.get(name);
    if (provider === undefined) throw new Error(`no cluster named ${name}`);
    return provider;
  }
  listTaggedOrNamed(names: string[], ctx: OperationContext, known?: readonly KnownVm[]): Promise<ListedVm[]> {
    return this.of(ctx).listTaggedOrNamed(names, ctx, known);
  }
  findByName(name: string, ctx: OperationContext): Promise<ListedVm[]> {
    return this.of(ctx).findByName(name, ctx);
  }
  listSeeds(ctx: OperationContext): Promise<SeedIso[]> {
    return this.of(ctx).listSeeds(ctx);
  }
  listRecordedSeeds(ctx: OperationContext): Promise<SeedIso[]> {
    return this.of(ctx).listRecordedSeeds(ctx);
  }
  deleteSeed(seed: SeedIso, ctx: OperationContext): Promise<void> {
    return this.of(ctx).deleteSeed(seed, ctx);
  }
}

/** A schedule that always lists, counting its calls. */
export class ScheduleDouble implements SeedListingSchedule {
  dueCalls = 0;
  listedCalls = 0;
  due(): Promise<boolean> {
    this.dueCalls++;
    return Promise.resolve(true);
  }
  listed(): Promise<void> {
    this.listedCalls++;
    return Promise.resolve();
  }
}

export class LeaseBookDouble implements AddressLeaseBook {
  leases: LeasedAddress[] = [];
  freed: string[] = [];
  list(): Promise<LeasedAddress[]> {
    return Promise.resolve([...this.leases]);
  }
  free(name: string, uid: string): Promise<LeasedAddress | undefined> {
    const lease = this.leases.find((l) => l.name === name && l.uid === uid);
    this.leases = this.leases.filter((l) => l !== lease);
    if (lease) this.freed.push(`${name} ${uid}`);
    return Promise.resolve(lease);
  }
  poolOf(): string | undefined {
    return undefined;
  }
  holds(name: string, uid: string, address: string): Promise<boolean> {
    return Promise.resolve(this.leases.some((l) => l.name === name && l.uid === uid && l.address === address));
  }
}

export class HoldBookDouble {
  holds: TenantHoldRef[] = [];
  freed: string[] = [];
  list(): Promise<TenantHoldRef[]> {
    return Promise.resolve([...this.holds]);
  }
  free(name: string, uid: string): Promise<TenantHoldRef | undefined> {
    const hold = this.holds.find((h) => h.name === name && h.uid === uid);
    this.holds = this.holds.filter((h) => h !== hold);
    if (hold) this.freed.push(`${name} ${uid}`);
    return Promise.resolve(hold);
  }
}

export interface Clusters {
  router: RouterDouble;
  schedules: Map<string, ScheduleDouble>;
  /** One ClusterSweep per cluster, in the given order, as the runner builds them in the several-clusters form. */
  sweeps: ClusterSweep[];
}

/** The world's deps shared, each cluster with its own provider (via the router), schedule, name and share of the names. */
export function severalClusters(world: World, providers: [string, ProviderDouble][], books: { addresses?: AddressLeaseBook; holds?: HoldBookDouble } = {}): Clusters {
  const first = providers[0]?.[0] ?? '';
  const router = new RouterDouble(new Map(providers), first);
  const schedules = new Map<string, ScheduleDouble>();
  const sweeps = providers.map(([name]): ClusterSweep => {
    const schedule = new ScheduleDouble();
    schedules.set(name, schedule);
    return {
      name,
      owns: ownedByRecord(name, first),
      deps: {
        ...world.deps,
        provider: router,
        cluster: name,
        seedListing: schedule,
        ...(books.addresses ? { addresses: books.addresses } : {}),
        ...(books.holds ? { tenantHolds: books.holds } : {}),
        log: (line) => world.lines.push(`cluster ${name}: ${line}`),
      },
    };
  });
  return { router, schedules, sweeps };
}

/** The registry double's entry recorded in `cluster` (SPEC 32: its create's `cluster`). */
export function inCluster(world: World, name: string, cluster: string): void {
  const entry = world.registry.entries.get(name);
  if (entry === undefined) throw new Error(`no entry for ${name}`);
  entry.cluster = cluster;
}
