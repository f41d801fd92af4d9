// A lease renewal's input (SPEC 31: PUT /v1/vms/{name}/lease, the
// client's renewLease, the CLI's `lease`), checked alike for all three so
// each refuses the same input naming the same field: a new expiry from
// now (ttlSeconds) or at a time (expiresAt), never past leases.maxSeconds
// from now, and `shorten` to move it earlier. Producer-safe: no worker code.
import { reservedNameProblem } from '../pools/reserved-name.js';
import { DNS_LABEL } from '../job-table/fields.js';
import type { FieldError, JobLimits } from '../job-table/fields.js';
import type { JobDoor } from './enqueue.js';
import type { LeaseTimer } from './lease-timer.js';
import { LeaseExpiredError, LeaseShortenError, NameNotFoundError } from './producer-errors.js';
import type { DesiredStateRegistry } from './registry.js';
import { parseRfc3339 } from './rfc3339.js';

/** The new expiry: from now, or at a time (RFC 3339). */
export type LeaseRenewal = { ttlSeconds: number } | { expiresAt: string };

export interface LeaseRenewalOptions {
  /** Allow the new expiry to be earlier than the present one. Default false. */
  shorten?: boolean;
}

export interface CheckedRenewal {
  name: string;
  expiresAt: Date;
  shorten: boolean;
}

const RENEWAL_KEYS = ['ttlSeconds', 'expiresAt', 'shorten'];

function expiryOf(given: Record<string, unknown>, limits: JobLimits, now: number, errors: FieldError[]): Date | undefined {
  const max = limits.leases.maxSeconds;
  const { ttlSeconds, expiresAt } = given;
  if ((ttlSeconds === undefined) === (expiresAt === undefined)) {
    errors.push({ field: 'ttlSeconds', message: 'or expiresAt is required, and only one of them' });
    return undefined;
  }
  if (ttlSeconds !== undefined) {
    if (typeof ttlSeconds === 'number' && Number.isInteger(ttlSeconds) && ttlSeconds >= 1 && ttlSeconds <= max) return new Date(now + ttlSeconds * 1000);
    errors.push({ field: 'ttlSeconds', message: `must be an integer from 1 to ${max} (leases.maxSeconds)${typeof ttlSeconds === 'number' ? `, got ${ttlSeconds}` : ''}` });
    return undefined;
  }
  const at = parseRfc3339(expiresAt);
  if (at === undefined) errors.push({ field: 'expiresAt', message: 'must be an RFC 3339 date-time with an offset, e.g. 2030-01-02T03:04:05Z' });
  else if (at.getTime() <= now) errors.push({ field: 'expiresAt', message: `must be later than now (${new Date(now).toISOString()})` });
  else if (at.getTime() > now + max * 1000) errors.push({ field: 'expiresAt', message: `must be at most ${max} s (leases.maxSeconds) from now, at most ${new Date(now + max * 1000).toISOString()}` });
  else return at;
  return undefined;
}

/** A renewal as a caller sent it (the name, and one object of ttlSeconds or expiresAt, and shorten), or every failing field. */
export function checkRenewal(name: unknown, input: unknown, limits: JobLimits, now = Date.now()): { ok: true; value: CheckedRenewal } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  if (typeof name !== 'string' || !DNS_LABEL.test(name)) errors.push({ field: 'name', message: 'must be a DNS label: 1 to 63 of a-z, 0-9 and "-", not starting or ending with "-"' });
  const reserved = reservedNameProblem(name);
  if (reserved !== undefined) errors.push(reserved);
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return { ok: false, errors: [...errors, { field: 'body', message: 'must be a JSON object of ttlSeconds or expiresAt, and shorten' }] };
  const given = input as Record<string, unknown>;
  for (const key of Object.keys(given)) if (!RENEWAL_KEYS.includes(key) && given[key] !== undefined) errors.push({ field: key, message: `is not a renewal field (${RENEWAL_KEYS.join(', ')})` });
  const expiresAt = expiryOf(given, limits, now, errors);
  if (given.shorten !== undefined && typeof given.shorten !== 'boolean') errors.push({ field: 'shorten', message: 'must be true or false' });
  if (errors.length > 0 || expiresAt === undefined) return { ok: false, errors };
  return { ok: true, value: { name: name as string, expiresAt, shorten: given.shorten === true } };
}

/** A name's lease as a renewal answers it. */
export interface LeaseView {
  name: string;
  /** RFC 3339: the VM ends at this time unless renewed again. */
  expiresAt: string;
  onExpiry: 'delete' | 'stop';
  /** One more per renewal or moving create (SPEC 31). */
  version: number;
}

export interface RenewalWriters {
  door: Pick<JobDoor, 'accept'>;
  registry: DesiredStateRegistry;
  limits: JobLimits;
  leaseTimer: LeaseTimer;
}

/**
 * A checked renewal: the lease moved in Redis atomically (a new version,
 * no warning sent yet), then its timers set. Throws NameNotFoundError (no
 * present name), LeaseExpiredError (its expiry stopped the VM) or
 * LeaseShortenError (earlier without shorten), changing
 * nothing. A name with no lease gets one: renewing is how a caller keeps
 * a VM that was created without one from living for ever.
 */
export function acceptRenewal({ door, registry, limits, leaseTimer }: RenewalWriters, renewal: CheckedRenewal): Promise<LeaseView> {
  return door.accept(async () => {
    const outcome = await registry.renewLease(renewal.name, renewal.expiresAt, renewal.shorten, limits.leases.onExpiry);
    if (outcome.kind === 'absent') throw new NameNotFoundError(renewal.name);
    if (outcome.kind === 'expired') throw new LeaseExpiredError(renewal.name, outcome.expiresAt);
    if (outcome.kind === 'earlier') throw new LeaseShortenError(renewal.name, outcome.expiresAt, renewal.expiresAt.toISOString());
    await leaseTimer.set(renewal.name, outcome.generation, outcome.lease);
    const { expiresAt, onExpiry, version } = outcome.lease;
    return { name: renewal.name, expiresAt, onExpiry, version };
  });
}
