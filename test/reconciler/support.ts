// Test doubles for the sweep's ports (src/reconciler/ports.ts): a small
// in-memory provider that keeps VMs and seeds the way Proxmox would show
// them, and in-memory registry, locks, job lookup and enqueuer that record
// what the sweep asked for. The sweep itself is never replaced.
import { knownEntry } from '../../src/provider/list.js';
import type { KnownVm, ListedVm, OperationContext, SeedIso } from '../../src/provider/types.js';
import type {
  CreateAgain,
  DesiredEntry,
  DesiredStateReader,
  Enqueuer,
  JobLookup,
  NameLocks,
  SweepDeps,
  SweepProvider,
  TargetedDelete,
} from '../../src/reconciler/ports.js';

export const OUR_TAG = 'pve_provisioner';
export const NOW = new Date('2026-11-30T12:00:00Z');
export const GRACE_SECONDS = 900;
/** Well past the grace period. */
export const OLD = new Date(NOW.getTime() - 3600_000);

export function mark(uid: string, createdAt: Date = OLD): string {
  return `managed-by: pve-provisioner\nuid: ${uid}\nwritten-at-create: ${createdAt.toISOString()}`;
}

export interface DoubleVm {
  vmid: number;
  node: string;
  name?: string;
  tags: string[];
  description?: string;
  /** Its config read fails (a node down, a lock): the provider answers 'unknown'. */
  configUnreadable?: boolean;
}

/** A provider double: ours means our mark with a uid, as SPEC 11 writes it. */
export class ProviderDouble implements SweepProvider {
  vms = new Map<number, DoubleVm>();
  seeds: SeedIso[] = [];
  deletedSeeds: string[] = [];
  calls = { listByTag: 0, findByName: 0, findByNames: 0, listTaggedOrNamed: 0, listSeeds: 0, deleteSeed: 0 };
  failLookupOf = new Set<string>();

  addVm(vm: DoubleVm): this {
    this.vms.set(vm.vmid, vm);
    return this;
  }

  /** `shared`: as the node's storage listing says; 'unsaid' when it said nothing. */
  addSeed(name: string, node: string, ctime: Date = OLD, shared: boolean | 'unsaid' = false): this {
    const volid = `seeds:iso/${name}-seed.iso`;
    const seed: SeedIso = { node, storage: 'seeds', volid, name, ctime: Math.floor(ctime.getTime() / 1000) };
    if (shared !== 'unsaid') seed.shared = shared;
    this.seeds.push(seed);
    return this;
  }

  moveVm(vmid: number, node: string): this {
    const vm = this.vms.get(vmid);
    if (vm) vm.node = node;
    return this;
  }

  listByTag(_ctx: OperationContext): Promise<ListedVm[]> {
    this.calls.listByTag++;
    return Promise.resolve([...this.vms.values()].filter((vm) => vm.tags.includes(OUR_TAG)).map((vm) => this.view(vm)));
  }

  findByName(name: string, _ctx: OperationContext): Promise<ListedVm[]> {
    this.calls.findByName++;
    if (this.failLookupOf.has(name)) return Promise.reject(new Error(`lookup of ${name} failed`));
    return Promise.resolve([...this.vms.values()].filter((vm) => vm.name === name).map((vm) => this.view(vm)));
  }

  listSeeds(_ctx: OperationContext): Promise<SeedIso[]> {
    this.calls.listSeeds++;
    return Promise.resolve([...this.seeds]);
  }

  deleteSeed(seed: SeedIso, _ctx: OperationContext): Promise<void> {
    this.calls.deleteSeed++;
    this.seeds = this.seeds.filter((s) => s.volid !== seed.volid || s.node !== seed.node);
    this.deletedSeeds.push(seed.volid);
    return Promise.resolve();
  }

  protected view(vm: DoubleVm): ListedVm {
    const listed: ListedVm = { vmid: vm.vmid, node: vm.node, ours: false, tagged: vm.tags.includes(OUR_TAG) };
    if (vm.name !== undefined) listed.name = vm.name;
    if (vm.configUnreadable) return { ...listed, ours: 'unknown' };
    const lines = (vm.description ?? '').split('\n');
    if (lines[0] !== 'managed-by: pve-provisioner') return listed;
    const field = (key: string): string | undefined =>
      lines.find((l) => l.startsWith(`${key}: `))?.slice(key.length + 2);
    const uid = field('uid');
    const createdAt = field('written-at-create');
    if (uid === undefined) return listed;
    return { ...listed, ours: true, uid, ...(createdAt === undefined ? {} : { createdAt }) };
  }
}

/** A provider that looks many names up in one call (SweepProvider.findByNames). */
export class BatchingProviderDouble extends ProviderDouble {
  async findByNames(names: string[], ctx: OperationContext): Promise<ListedVm[]> {
    this.calls.findByNames++;
    const found = await Promise.all(names.map((name) => this.findByName(name, ctx)));
    this.calls.findByName -= names.length;
    return found.flat();
  }
}

export class RegistryDouble implements DesiredStateReader {
  entries = new Map<string, DesiredEntry>();
  generations = new Map<string, number>();

  present(name: string, uid: string, updatedAt: Date = OLD, generation = 1): this {
    this.entries.set(name, { name, state: 'present', uid, generation, updatedAt: updatedAt.toISOString() });
    this.generations.set(name, generation);
    return this;
  }

  /** What the name's last job saw, as a create or check writes it (after the entry, by default). */
  seen(name: string, vmid: number, node: string, at: Date = new Date(OLD.getTime() + 60_000)): this {
    const entry = this.entries.get(name);
    if (entry === undefined) throw new Error(`no entry for ${name}`);
    entry.lastKnown = { vmid, node, at: at.toISOString() };
    return this;
  }

  tombstone(name: string, generation = 2, updatedAt: Date = OLD): this {
    this.entries.set(name, { name, state: 'absent', generation, updatedAt: updatedAt.toISOString() });
    this.generations.set(name, generation);
    return this;
  }

  /** A name recorded once whose tombstone has since expired. */
  expired(name: string, generation = 2): this {
    this.entries.delete(name);
    this.generations.set(name, generation);
    return this;
  }

  knownGenerations(): Promise<Map<string, number>> {
    return Promise.resolve(new Map(this.generations));
  }

  listAll(): Promise<DesiredEntry[]> {
    return Promise.resolve([...this.entries.values()]);
  }

  get(name: string): Promise<DesiredEntry | undefined> {
    return Promise.resolve(this.entries.get(name));
  }
}

export class LocksDouble implements NameLocks {
  held = new Set<string>();
  taken: string[] = [];

  isHeld(name: string): Promise<boolean> {
    return Promise.resolve(this.held.has(name));
  }

  async tryWithLock<T>(name: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    if (this.held.has(name)) return { ran: false };
    this.held.add(name);
    this.taken.push(name);
    try {
      return { ran: true, value: await fn() };
    } finally {
      this.held.delete(name);
    }
  }
}

export class JobsDouble implements JobLookup {
  pending = new Set<string>();
  hasPendingJob(name: string): Promise<boolean> {
    return Promise.resolve(this.pending.has(name));
  }
}

export class EnqueuerDouble implements Enqueuer {
  deletes: TargetedDelete[] = [];
  creates: CreateAgain[] = [];
  enqueueDelete(request: TargetedDelete): Promise<string> {
    this.deletes.push(request);
    return Promise.resolve(`delete-${this.deletes.length}`);
  }
  enqueueCreate(request: CreateAgain): Promise<string> {
    this.creates.push(request);
    return Promise.resolve(`create-${this.creates.length}`);
  }
}

export interface World {
  provider: SweepProvider;
  registry: RegistryDouble;
  locks: LocksDouble;
  jobs: JobsDouble;
  enqueuer: EnqueuerDouble;
  findings: string[];
  lines: string[];
  deps: SweepDeps;
}

export function makeWorld(provider: SweepProvider, settings: Partial<SweepDeps['settings']> = {}): World {
  const registry = new RegistryDouble();
  const locks = new LocksDouble();
  const jobs = new JobsDouble();
  const enqueuer = new EnqueuerDouble();
  const findings: string[] = [];
  const lines: string[] = [];
  const deps: SweepDeps = {
    registry,
    locks,
    jobs,
    enqueuer,
    provider,
    clock: { now: () => NOW },
    settings: { graceSeconds: GRACE_SECONDS, recreateMissing: true, ...settings },
    onFinding: (kind) => findings.push(kind),
    log: (line) => lines.push(line),
  };
  return { provider, registry, locks, jobs, enqueuer, findings, lines, deps };
}

/**
 * A provider that lists tagged VMs and looks names up in one call
 * (SweepProvider.listTaggedOrNamed), taking a listing entry as a known VM
 * by the provider's own rule (knownEntry) and reading every other
 * candidate's config, counted in `configReads`.
 */
export class ListingProviderDouble extends ProviderDouble {
  configReads: number[] = [];

  listTaggedOrNamed(names: string[], _ctx: OperationContext, known: readonly KnownVm[] = []): Promise<ListedVm[]> {
    this.calls.listTaggedOrNamed++;
    const failed = names.find((name) => this.failLookupOf.has(name));
    if (failed !== undefined) return Promise.reject(new Error(`lookup of ${failed} failed`));
    const wanted = new Set(names);
    const byVmid = new Map(known.map((vm) => [vm.vmid, vm]));
    const candidates = [...this.vms.values()].filter((vm) => vm.tags.includes(OUR_TAG) || (vm.name !== undefined && wanted.has(vm.name)));
    return Promise.resolve(
      candidates.map((vm): ListedVm => {
        const entry = { vmid: vm.vmid, node: vm.node, tags: vm.tags.join(';'), ...(vm.name === undefined ? {} : { name: vm.name }) };
        const knownVm = knownEntry(entry, OUR_TAG, byVmid);
        if (knownVm !== undefined) return { vmid: vm.vmid, node: vm.node, name: knownVm.name, uid: knownVm.uid, ours: true, tagged: true, fromListing: true };
        this.configReads.push(vm.vmid);
        return this.view(vm);
      }),
    );
  }
}
