// The shape of an address lease (SPEC 29) as a create job carries it: the
// door writes it, the worker checks it again before it builds the seed
// from it (old or hand-made jobs may carry anything). Its JSON Schema
// documents the job's data (OpenAPI).
import { IMAGE_NAME_RE } from '../config/name-patterns.js';
import { UID } from '../job-table/fields.js';
import { ipv4ToNumber } from './ipv4.js';
import type { AddressLease } from './types.js';

const LEASE_KEYS = ['pool', 'address', 'prefixLength', 'gateway', 'dns', 'uid', 'takenAt'] as const;
/** At most this many DNS servers in a lease. */
const MAX_DNS = 16;

const isQuad = (value: unknown): boolean => typeof value === 'string' && ipv4ToNumber(value) !== undefined;

/** What is wrong with a lease (said after the field's name), or undefined when it is one. */
export function addressLeaseProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be an address lease object {pool, address, prefixLength, gateway?, dns, uid, takenAt}';
  const lease = value as Record<string, unknown>;
  const extra = Object.keys(lease).find((key) => !(LEASE_KEYS as readonly string[]).includes(key));
  if (extra !== undefined) return `has unknown key "${extra}"`;
  if (typeof lease.pool !== 'string' || !IMAGE_NAME_RE.test(lease.pool)) return '.pool must be a pool name';
  if (!isQuad(lease.address)) return '.address must be an IPv4 address';
  if (typeof lease.prefixLength !== 'number' || !Number.isInteger(lease.prefixLength) || lease.prefixLength < 8 || lease.prefixLength > 30) return '.prefixLength must be an integer from 8 to 30';
  if (lease.gateway !== undefined && !isQuad(lease.gateway)) return '.gateway must be an IPv4 address';
  if (!Array.isArray(lease.dns) || lease.dns.length > MAX_DNS || !lease.dns.every(isQuad)) return `.dns must be a list of at most ${MAX_DNS} IPv4 addresses`;
  if (typeof lease.uid !== 'string' || !UID.test(lease.uid)) return '.uid must be a uid';
  if (typeof lease.takenAt !== 'string' || Number.isNaN(Date.parse(lease.takenAt))) return '.takenAt must be an RFC 3339 time';
  return undefined;
}

export function isAddressLease(value: unknown): value is AddressLease {
  return addressLeaseProblem(value) === undefined;
}

const quad = { type: 'string', description: 'IPv4, dotted quad' };

/** The lease's JSON Schema (properties and required), for the documents. */
export const ADDRESS_LEASE_SCHEMA: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['pool', 'address', 'prefixLength', 'dns', 'uid', 'takenAt'],
  properties: {
    pool: { type: 'string', description: 'The address pool (proxmox.networks[].name).' },
    address: { ...quad, description: "The VM's static IPv4 address." },
    prefixLength: { type: 'integer', minimum: 8, maximum: 30, description: "The pool's prefix length." },
    gateway: quad,
    dns: { type: 'array', maxItems: MAX_DNS, items: quad },
    uid: { type: 'string', description: 'The uid the lease is bound to: it ends when that uid\'s VM is gone.' },
    takenAt: { type: 'string', format: 'date-time', description: 'When the door took the lease.' },
  },
};

/** The most bytes a lease takes as JSON: its keys, 17 quads, a pool name and uid of 64, a time. */
export const ADDRESS_LEASE_MAX_JSON_BYTES = 2048;
