// What the job layer sees of the provider (SPEC 10 to 16, 19). Every
// operation takes an OperationContext: its AbortSignal ends Proxmox calls
// and waits at once (job cancelled, lock lost).

import type { CreateSpec as CreateJobSpec } from '../job-table/create.schema.js';
import type { CreateResult, CreateStep, DeleteResult, StopResult, VmState } from '../job-table/result.schema.js';
import type { NodeHealth } from '../job-table/health-result.schema.js';
import type { Logger } from '../log.js';
import type { AddressLease } from '../addresses/types.js';
import type { PoolClaim } from '../pools/types.js';

export type { CreateResult, CreateStep, DeleteResult, InPlaceField, StopResult } from '../job-table/result.schema.js';
export type { HealthReason, ImageHealth, NodeHealth } from '../job-table/health-result.schema.js';

export interface OperationContext {
  signal: AbortSignal;
  /**
   * The cluster the operation is for (SPEC 32): the job's, from its data
   * or its name's record; absent: the first cluster (the one-cluster form's only one).
   */
  cluster?: string;
  /** The job's id, when a job runs the operation. */
  jobId?: string;
  /**
   * The job's own logger: every line carries its jobId, job and VM name (vm)
   * (the worker's logger.child). Absent outside a job, where the
   * provider's process logger writes the line.
   */
  logger?: Logger;
  /** A step reached (SPEC 1: job.updateProgress). */
  progress?: (step: CreateStep) => void | Promise<void>;
  /** One line for the job log (SPEC 1, SPEC 16 task warnings). */
  log?: (line: string) => void | Promise<void>;
  /**
   * Called before every Proxmox write; throws when the caller lost its
   * job lock or name lock (SPEC 3: stop before the next write).
   */
  beforeWrite?: () => void;
}

export interface VmRef {
  name: string;
  uid: string;
  /** Where the registry last saw the name's VM (its lastKnown VMID): read even under another name (SPEC 28). */
  knownVmid?: number;
}

export interface VmObservation {
  state: VmState;
  providerId?: string;
  vmid?: number;
  node?: string;
  uid?: string;
  address?: string;
  createdAt?: string;
}

/**
 * A create's fields (SPEC 1), declared once by the field table in
 * src/job-table/create.schema.ts; `image` may be absent (the default image, SPEC 27).
 */
export type CreateSpec = Omit<CreateJobSpec, 'image'> & {
  image?: string;
  /** The address lease the door took (SPEC 29): the seed's network-config sets it statically; absent: DHCP. */
  address?: AddressLease;
  /** The desired-state generation the create job carries (SPEC 2): a phone-home token records it (SPEC 29). */
  generation?: number;
  /**
   * The pool this create makes a member for (SPEC 30): the VM gets the
   * pool tag (`<tag>-pool`) and its seed makes the image user's `~/.ssh`
   * for a claim's keys.
   */
  poolMember?: string;
};

/** A create that claimed an idle pool VM at the accept (SPEC 30). */
export interface ClaimRequest {
  /** The claimer's create. */
  spec: CreateSpec;
  /** What the accept recorded (the create job's `claim`). */
  claim: PoolClaim;
  /** The image's default user (`proxmox.images[].user`), whose authorized_keys get the keys. */
  user: string;
  /**
   * Called as soon as the member's VM carries the claimer's name and mark
   * (this claim's rename written, or a run before this one's found): the
   * VM is the claimer's from then on, so the caller forgets the member
   * there, before the keys, and a claim that fails later leaves no member
   * claimed for ever. A failure of it fails the claim (retried).
   */
  renamed?: () => Promise<void>;
  /** Where the registry last saw the claimer's name's VM (its lastKnown VMID): read before the rename even when pvestatd still lists it under another name (SPEC 28). */
  knownVmid?: number;
}

export interface DeleteRequest {
  name: string;
  /** When given, only the VM whose mark carries this uid is touched. */
  uid?: string;
  /** Where the registry last saw the name's VM (its lastKnown VMID): read even under another name (SPEC 28). */
  knownVmid?: number;
}

/** A stop at a lease's expiry (SPEC 31): only the VM whose mark carries the uid. */
export interface StopRequest extends DeleteRequest {
  uid: string;
}

/** A VM found by tag (SPEC 14). `unknown` when its config read failed. */
export interface ListedVm {
  vmid: number;
  node: string;
  name?: string;
  uid?: string;
  createdAt?: string;
  status?: string;
  ours: boolean | 'unknown';
  tagged: boolean;
  /**
   * Its ownership came from the listing and a KnownVm, not from its
   * config (SPEC 26): `uid` is the registry's, and `createdAt` is absent.
   */
  fromListing?: true;
  /** Someone set `protection` after its create's config write (SPEC 28): Proxmox refuses to destroy it until they clear it. A flag copied from the template onto a clone never configured is not this: the delete clears that one. */
  protected?: true;
}

/**
 * A VM the registry knows (SPEC 26): a present name's uid and the VMID and
 * node its last job saw it at. A tagged listing entry with this name, VMID
 * and node is taken as that VM without reading its config.
 */
export interface KnownVm {
  name: string;
  uid: string;
  vmid: number;
  node: string;
}

export interface SeedIso {
  node: string;
  storage: string;
  volid: string;
  /** The VM name the file name carries (`<name>-seed.iso`). */
  name: string;
  ctime?: number;
  /**
   * false when the storage is the node's own (its files are that node's
   * alone), true when shared; absent when the node's storage listing did
   * not say.
   */
  shared?: boolean;
}

export interface Provider {
  get(ref: VmRef, ctx: OperationContext): Promise<VmObservation>;
  /** Looks a name up without knowing its uid (reconciler, SPEC 5). */
  findByName(name: string, ctx: OperationContext): Promise<ListedVm[]>;
  /** findByName for many names with one resources call (the sweep, SPEC 5, SPEC 21). */
  findByNames(names: string[], ctx: OperationContext): Promise<ListedVm[]>;
  listByTag(ctx: OperationContext): Promise<ListedVm[]>;
  /**
   * listByTag and findByNames in one resources call, each config read
   * once, none for an entry a KnownVm confirms (the sweep, SPEC 5, 21, 26).
   */
  listTaggedOrNamed(names: string[], ctx: OperationContext, known?: readonly KnownVm[]): Promise<ListedVm[]>;
  /** Every configured node's seed storage, listed (one content and one storage call per node; refreshes the shared flags). */
  listSeeds(ctx: OperationContext): Promise<SeedIso[]>;
  /** The seeds the records say were uploaded, with no Proxmox call once the shared flags are known (SPEC 5, 26). */
  listRecordedSeeds(ctx: OperationContext): Promise<SeedIso[]>;
  deleteSeed(seed: SeedIso, ctx: OperationContext): Promise<void>;
  create(spec: CreateSpec, ctx: OperationContext): Promise<CreateResult>;
  /**
   * A create that claimed an idle pool VM (SPEC 30): renamed to it, its
   * sshKeys written through the guest agent, Running with the address.
   * A ClaimLostError (src/provider/claim-lost.ts) when the member is gone
   * or not the claim's: nothing was written; make the VM the cold way.
   */
  claim(request: ClaimRequest, ctx: OperationContext): Promise<CreateResult>;
  delete(request: DeleteRequest, ctx: OperationContext): Promise<DeleteResult>;
  /** Stops the VM and keeps it (SPEC 31); NotFound is not an error: nothing to stop. */
  stop(request: StopRequest, ctx: OperationContext): Promise<StopResult>;
  health(ctx: OperationContext): Promise<NodeHealth[]>;
}
