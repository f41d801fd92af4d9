// Test doubles for the sweep's ports (src/reconciler/ports.ts): a small
// in-memory provider that keeps VMs and seeds the way Proxmox would show
// them and answers the sweep's one listing as the provider does
// (listTaggedOrNamed, with the provider's own knownEntry rule), and in-memory registry, locks, job lookup and enqueuer that record
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
  ExpiredLease,
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

/**
 * A provider double: ours means our mark with a uid, as SPEC 11 writes it.
 * Its listing takes an entry as a known VM by the provider's own rule
 * (knownEntry) and reads every other candidate's config, counted in
 * `configReads`.
 */
export class ProviderDouble implements SweepProvider {
  vms = new Map<number, DoubleVm>();
  /** What the storages hold, as their listing shows it. */
  seeds: SeedIso[] = [];
  /** What the seed records name (SPEC 5, 26), as the provider turns them into seeds. */
  recorded: SeedIso[] = [];
  deletedSeeds: string[] = [];
  calls = { findByName: 0, listTaggedOrNamed: 0, listSeeds: 0, listRecordedSeeds: 0, deleteSeed: 0 };
  configReads: number[] = [];

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

  /** A record of a seed, as a create writes it before its upload; `uploaded` also puts the seed on the storage. */
  recordSeed(name: string, node: string, at: Date = OLD, uploaded = true): this {
    const seed: SeedIso = { node, storage: 'seeds', volid: `seeds:iso/${name}-seed.iso`, name, ctime: Math.floor(at.getTime() / 1000), shared: false };
    this.recorded.push(seed);
    if (uploaded) this.seeds.push({ ...seed });
    return this;
  }

  moveVm(vmid: number, node: string): this {
    const vm = this.vms.get(vmid);
    if (vm) vm.node = node;
    return this;
  }

  /** Tagged VMs and the named ones from one listing (SPEC 5, 14, 26). */
  listTaggedOrNamed(names: string[], _ctx: OperationContext, known: readonly KnownVm[] = []): Promise<ListedVm[]> {
    this.calls.listTaggedOrNamed++;
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

  findByName(name: string, _ctx: OperationContext): Promise<ListedVm[]> {
    this.calls.findByName++;
    return Promise.resolve([...this.vms.values()].filter((vm) => vm.name === name).map((vm) => this.view(vm)));
  }

  listSeeds(_ctx: OperationContext): Promise<SeedIso[]> {
    this.calls.listSeeds++;
    return Promise.resolve([...this.seeds]);
  }

  listRecordedSeeds(_ctx: OperationContext): Promise<SeedIso[]> {
    this.calls.listRecordedSeeds++;
    return Promise.resolve([...this.recorded]);
  }

  /** Deleting a seed that is not there succeeds (F13); either way its record is forgotten. */
  deleteSeed(seed: SeedIso, _ctx: OperationContext): Promise<void> {
    this.calls.deleteSeed++;
    const other = (s: SeedIso): boolean => s.volid !== seed.volid || s.node !== seed.node;
    this.seeds = this.seeds.filter(other);
    this.recorded = this.recorded.filter(other);
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
  pendingExpiries = new Set<string>();
  hasPendingExpiry(name: string): Promise<boolean> {
    return Promise.resolve(this.pendingExpiries.has(name));
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
  expiries: ExpiredLease[] = [];
  expireLease(request: ExpiredLease): Promise<string | undefined> {
    this.expiries.push(request);
    return Promise.resolve(`expiry-${this.expiries.length}`);
  }
}

export interface World {
  provider: ProviderDouble;
  registry: RegistryDouble;
  locks: LocksDouble;
  jobs: JobsDouble;
  enqueuer: EnqueuerDouble;
  findings: string[];
  lines: string[];
  deps: SweepDeps;
}

export function makeWorld(provider: ProviderDouble, settings: Partial<SweepDeps['settings']> = {}): World {
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
