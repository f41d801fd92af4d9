// Errors the producer library throws (SPEC 1, SPEC 2). No worker code.
import type { FieldError } from '../job-table/fields.js';

/** Bad input: every failing field with its reason; nothing was enqueued. */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  constructor(readonly fields: FieldError[]) {
    super(`invalid job data: ${fields.map((f) => `${f.field} ${f.message}`).join('; ')}`);
  }
}

/** A create for a name that another uid holds (HTTP 409): never a second VM. */
export class ConflictError extends Error {
  override readonly name: string = 'ConflictError';
  constructor(
    readonly vmName: string,
    readonly existingUid: string,
    message = `name ${vmName} is already held by another uid`,
  ) {
    super(message);
  }
}

/**
 * A create whose spec differs from the present one (HTTP 409, SPEC 2),
 * whatever the uid: `fields` names every differing field. Nothing was
 * recorded or enqueued; the present spec stays.
 */
export class SpecConflictError extends ConflictError {
  override readonly name = 'SpecConflictError';
  constructor(
    vmName: string,
    existingUid: string,
    readonly fields: string[],
    /** The caller also gave another uid than the present one. */
    readonly uidDiffers: boolean,
  ) {
    super(
      vmName,
      existingUid,
      `name ${vmName} is present${uidDiffers ? ' with another uid and' : ''} with another spec: ${fields.join(', ')} ${fields.length === 1 ? 'differs' : 'differ'}; ` +
        'delete it first, or send the spec it has',
    );
  }
}

/** A call about a name the registry holds no present record of (HTTP 404): a lease renewal (SPEC 31). */
export class NameNotFoundError extends Error {
  override readonly name = 'NameNotFoundError';
  constructor(readonly vmName: string) {
    super(`no present VM is named ${vmName}`);
  }
}

/** A renewal of a lease whose expiry stopped the VM (HTTP 409, SPEC 31): the VM stays stopped; a create of its spec starts it again. Nothing changed. */
export class LeaseExpiredError extends Error {
  override readonly name = 'LeaseExpiredError';
  constructor(
    readonly vmName: string,
    /** When the lease ended. */
    readonly expiresAt: string,
  ) {
    super(`the lease of ${vmName} expired at ${expiresAt} and stopped it: create it again with the same spec to start it (with a new lease)`);
  }
}

/** A renewal that would end the lease earlier than it now ends, without `shorten` (HTTP 409, SPEC 31); nothing changed. */
export class LeaseShortenError extends Error {
  override readonly name = 'LeaseShortenError';
  constructor(
    readonly vmName: string,
    /** When the lease ends now. */
    readonly expiresAt: string,
    /** When the renewal asked it to end. */
    readonly asked: string,
  ) {
    super(`the lease of ${vmName} ends at ${expiresAt}; ${asked} is earlier: send shorten: true to move it earlier`);
  }
}

/**
 * A create on a pooled network whose address pool has no free address
 * (HTTP 409, SPEC 29): every address is held or waits out its reuse
 * cooldown. Nothing was recorded or enqueued; the same create may succeed
 * once a lease ends and its cooldown passes.
 */
export class PoolExhaustedError extends Error {
  override readonly name = 'PoolExhaustedError';
  constructor(
    readonly vmName: string,
    /** The pool's name (proxmox.networks[].name). */
    readonly pool: string,
    /** The network in words: `bridge vmbr1, VLAN 20, 10.0.0.0/24`. */
    readonly network: string,
  ) {
    super(`address pool ${pool} (${network}) has no free address for ${vmName}: every address is held or waits out its reuse cooldown; nothing was recorded`);
  }
}

/** A call the token's scope does not allow (HTTP 403, SPEC 34): a `read` token's create, delete, check or renewal; an admin-only read. Nothing changed. */
export class ScopeError extends Error {
  override readonly name = 'ScopeError';
  constructor(
    readonly tenant: string,
    readonly scope: string,
    /** What was asked, in words: `create`, `GET /v1/tenants`. */
    readonly action: string,
  ) {
    super(`tenant ${tenant}'s token has the ${scope} scope, which may not ${action}`);
  }
}

/**
 * A create that would take its tenant past a quota (HTTP 403, SPEC 34):
 * the quota, what the tenant holds now and the limit. Nothing was recorded
 * or enqueued; the same create may pass once a VM of the tenant is gone.
 */
export class QuotaExceededError extends Error {
  override readonly name = 'QuotaExceededError';
  constructor(
    readonly vmName: string,
    readonly tenant: string,
    /** vms, cores, memoryMiB or diskGiB. */
    readonly quota: string,
    /** What the tenant holds now. */
    readonly use: number,
    /** What this create would add. */
    readonly asked: number,
    readonly limit: number,
  ) {
    super(`tenant ${tenant}'s ${quota} quota is ${limit}; it holds ${use} and ${vmName} would add ${asked}; nothing was recorded`);
  }
}

/** A create past its tenant's createsPerMinute (HTTP 429 with Retry-After, SPEC 34). Nothing was recorded or enqueued. */
export class RateLimitedError extends Error {
  override readonly name = 'RateLimitedError';
  constructor(
    readonly vmName: string,
    readonly tenant: string,
    readonly limit: number,
    /** Whole seconds until the bucket holds a create again. */
    readonly retryAfterSeconds: number,
  ) {
    super(`tenant ${tenant} may create ${limit} per minute and has used them; try ${vmName} again in ${retryAfterSeconds} s; nothing was recorded`);
  }
}

/**
 * A create of a name another tenant holds (HTTP 409, SPEC 34). VM names
 * are one namespace on the cluster, so a create cannot pretend the name is
 * free; the answer says only that it is taken, nothing of whose or what.
 */
export class NameTakenError extends Error {
  override readonly name = 'NameTakenError';
  constructor(readonly vmName: string) {
    super(`the name ${vmName} is in use; choose another`);
  }
}
