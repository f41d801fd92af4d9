// The step reads creates of one process share (SPEC 26, SPEC 13): the
// node listing of placement, the VM listing of the name look-up and a
// template's config. Everyone who asks while no call of that read is
// being sent joins the next one; each is answered only by a call sent
// after it asked, so a look-up made after the per-name lock was taken
// sees Proxmox as it was after the lock. One call at a time per read:
// who asks while one is on its way waits for the call after it, which
// goes out when it is back, for all who asked meanwhile.
import type { ClusterResource, VmConfig } from '../../proxmox/api.js';
import { cancelled } from '../errors.js';
import type { NodeLoad } from './node-load.js';

interface Asker<T> {
  signal: AbortSignal;
  resolve(value: T): void;
  reject(err: unknown): void;
  detach(): void;
}

/** The askers of one call not yet sent. */
class Batch<T> {
  readonly askers = new Set<Asker<T>>();
  /** Aborts the shared call once every asker has gone (each asker's signal ends only its own wait). */
  readonly controller = new AbortController();
}

/** One shared read: at most one call on its way and one batch waiting for the next. */
export class SharedRead<T> {
  private next: Batch<T> | undefined;
  private sending = false;

  constructor(private readonly fetch: (signal: AbortSignal) => Promise<T>) {}

  read(signal: AbortSignal): Promise<T> {
    if (signal.aborted) return Promise.reject(cancelled(signal));
    const batch = this.next ?? this.open();
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        this.leave(batch, asker);
        reject(cancelled(signal));
      };
      const asker: Asker<T> = { signal, resolve, reject, detach: () => signal.removeEventListener('abort', onAbort) };
      signal.addEventListener('abort', onAbort, { once: true });
      batch.askers.add(asker);
    });
  }

  private open(): Batch<T> {
    const batch = new Batch<T>();
    this.next = batch;
    // Askers of the same turn of the event loop join before it goes.
    if (!this.sending) setImmediate(() => void this.send());
    return batch;
  }

  private leave(batch: Batch<T>, asker: Asker<T>): void {
    asker.detach();
    batch.askers.delete(asker);
    if (batch.askers.size > 0) return;
    // Not sent yet: dropped, so who asks next opens a fresh batch rather than join one whose call is already aborted.
    if (batch === this.next) this.next = undefined;
    else batch.controller.abort(new Error('every job that asked was cancelled'));
  }

  private async send(): Promise<void> {
    // A send scheduled for a batch since dropped may find a call on its way: the one after it is sent when it is back.
    if (this.sending) return;
    const batch = this.next;
    this.next = undefined;
    if (batch === undefined || batch.askers.size === 0) return;
    this.sending = true;
    try {
      const value = await this.fetch(batch.controller.signal);
      for (const asker of batch.askers) {
        asker.detach();
        asker.resolve(value);
      }
    } catch (err) {
      // Every asker gets the failure and handles it by its own rules (its classification, its retries).
      for (const asker of batch.askers) {
        asker.detach();
        asker.reject(err);
      }
    } finally {
      this.sending = false;
      if (this.next !== undefined) void this.send();
    }
  }
}

/** The process's shared step reads; answers are shared, so nobody may change them. */
export class SharedReads {
  readonly nodes: SharedRead<ClusterResource[]>;
  readonly vms: SharedRead<ClusterResource[]>;
  private readonly configs = new Map<string, SharedRead<VmConfig>>();

  /** `load` (when given) learns each node's running VMs from every VM listing. */
  constructor(
    private readonly api: SharedReadsApi,
    load?: NodeLoad,
  ) {
    this.nodes = new SharedRead((signal) => api.clusterResources('node', { signal }));
    this.vms = new SharedRead(async (signal) => {
      const entries = await api.clusterResources('vm', { signal });
      load?.sawCluster(entries);
      return entries;
    });
  }

  /** A template's config (the check of SPEC 13 step 2). */
  config(node: string, vmid: number): SharedRead<VmConfig> {
    const key = `${node}/${vmid}`;
    let read = this.configs.get(key);
    if (read === undefined) {
      read = new SharedRead((signal) => this.api.getConfig(node, vmid, { signal }));
      this.configs.set(key, read);
    }
    return read;
  }
}

export type SharedReadsApi = {
  clusterResources(type: 'vm' | 'node', opts: { signal: AbortSignal }): Promise<ClusterResource[]>;
  getConfig(node: string, vmid: number, opts: { signal: AbortSignal }): Promise<VmConfig>;
};
