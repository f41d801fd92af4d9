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
