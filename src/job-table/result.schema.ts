// What the caller jobs answer (SPEC 1) and the steps a create goes
// through, declared once: the provider returns these types, the producer
// library's job views and the OpenAPI document (src/web/openapi-jobs.ts)
// give them to callers. Producer-safe: types and constants only.
import type { TemplateSource } from '../config/template-source.js';
import type { CreateSource } from '../pools/types.js';

// A create's result names the template it cloned from (SPEC 23) as config gives it.
export type { TemplateSource } from '../config/template-source.js';

/** A create's steps in the order it reaches them (SPEC 1, 13); `restarted` only for an in-place change that needed it, `address` only with waitForAddress. */
export const CREATE_STEPS = ['cloned', 'seeded', 'configured', 'resized', 'restarted', 'started', 'running', 'address'] as const;
export type CreateStep = (typeof CREATE_STEPS)[number];

export function isCreateStep(value: unknown): value is CreateStep {
  return (CREATE_STEPS as readonly unknown[]).includes(value);
}

/**
 * The job's progress (0 to 100) once it reached `step`, for Bull Board's
 * bar: the steps spread evenly up to the last one the create will reach,
 * `running` without waitForAddress, `address` with it.
 */
export function createStepPercent(step: CreateStep, waitForAddress: boolean): number {
  // Most creates never restart: `restarted` counts as the step before it, so the others keep even shares.
  const counted = CREATE_STEPS.filter((s) => s !== 'restarted');
  const index = counted.indexOf(step === 'restarted' ? 'resized' : step);
  const last = waitForAddress ? counted.length : counted.indexOf('running') + 1;
  return Math.min(100, Math.round(((index + 1) * 100) / last));
}

/** `Unknown`: the VM's cluster cannot be reached (SPEC 32): views say so while the last health finds it away. */
export const VM_STATES = ['Provisioning', 'Running', 'Stopped', 'NotFound', 'Unknown'] as const;
export type VmState = (typeof VM_STATES)[number];

/** A create's result (SPEC 1). */
export interface CreateResult {
  /** `vms/<vmid>/<name>`. */
  providerId: string;
  vmid: number;
  node: string;
  uid: string;
  /** Running once the guest agent reported an address; Provisioning when the job did not wait for one. */
  state: VmState;
  /** With waitForAddress (the default): the address the guest agent reported. */
  address?: string;
  createdAt: string;
  /** The image the VM was made from (SPEC 27): the one named, or proxmox.defaultImage. */
  image: string;
  /** The template it was cloned from; absent when the VM's node no longer serves the image in config. */
  source?: TemplateSource;
  /** The fields this create changed on a VM of ours configured before (SPEC 2, 13): an in-place change. */
  changed?: InPlaceField[];
  /**
   * Where the VM came from (SPEC 30): `pool`, an idle pool VM this create
   * claimed and renamed; `cold`, a clone of its own. Absent on a service
   * with no pools. (`source` is the template's, SPEC 23.)
   */
  origin?: CreateSource;
}

/** A create field a VM of ours takes in place (SPEC 2, 13); src/job-table/create.schema.ts's IN_PLACE_FIELDS gives each its rule. */
export type InPlaceField = 'cores' | 'memoryMiB' | 'diskGiB';

/** A delete's result (SPEC 1, 15). */
export interface DeleteResult {
  /** False when there was no VM of the name (or of the uid) to delete. */
  deleted: boolean;
  vmid?: number;
  seedsDeleted: number;
}

/** A stop's result (SPEC 31): the VM stays, stopped. */
export interface StopResult {
  /** False when no VM of ours was running under the name and uid (none, or stopped already). */
  stopped: boolean;
  vmid?: number;
  node?: string;
}

/** A check's result (SPEC 1, 3): Provisioning while a create or delete holds the name. */
export interface CheckResult {
  state: VmState;
  address?: string;
  vmid?: number;
  node?: string;
}

/** What a create or delete answers when a newer request for its name made it moot (SPEC 2): it touched nothing. */
export interface SupersededResult {
  superseded: true;
  generation: number;
  currentGeneration: number;
}

/** Each caller job's result as its job view gives it; the system jobs' are not part of the caller API. */
export interface JobResults {
  create: CreateResult | SupersededResult;
  delete: DeleteResult | SupersededResult;
  check: CheckResult;
  health: unknown;
  reconcile: unknown;
  stop: StopResult | SupersededResult;
  'lease-expiry': unknown;
  'lease-warning': unknown;
  'pool-refill': unknown;
}
