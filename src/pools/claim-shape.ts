// The shape of a pool claim (SPEC 30) as a create job carries it: the
// accept writes it, the worker checks it again before it renames a member
// by it (old or hand-made jobs may carry anything). Its JSON Schema
// documents the job's data (OpenAPI).
import { ipv4ToNumber } from '../addresses/ipv4.js';
import { DNS_LABEL, UID } from '../job-table/fields.js';
import { POOL_NAME_RE } from '../config/pools.js';
import { NODE_NAME_RE } from '../config/name-patterns.js';
import type { PoolClaim } from './types.js';

const CLAIM_KEYS = ['pool', 'member', 'memberUid', 'vmid', 'node', 'address', 'claimedAt', 'generation'] as const;

/** What is wrong with a claim (said after the field's name), or undefined when it is one. */
export function poolClaimProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be a pool claim object {pool, member, memberUid, vmid, node, address?, claimedAt, generation?}';
  const claim = value as Record<string, unknown>;
  const extra = Object.keys(claim).find((key) => !(CLAIM_KEYS as readonly string[]).includes(key));
  if (extra !== undefined) return `has unknown key "${extra}"`;
  if (typeof claim.pool !== 'string' || !POOL_NAME_RE.test(claim.pool)) return '.pool must be a pool name';
  if (typeof claim.member !== 'string' || !DNS_LABEL.test(claim.member)) return ".member must be a member's name";
  if (typeof claim.memberUid !== 'string' || !UID.test(claim.memberUid)) return '.memberUid must be a uid';
  if (typeof claim.vmid !== 'number' || !Number.isInteger(claim.vmid) || claim.vmid < 100 || claim.vmid > 999_999_999) return '.vmid must be a VMID, an integer from 100 to 999999999';
  if (typeof claim.node !== 'string' || !NODE_NAME_RE.test(claim.node)) return '.node must be a node name';
  if (claim.address !== undefined && (typeof claim.address !== 'string' || ipv4ToNumber(claim.address) === undefined)) return '.address must be an IPv4 address';
  if (typeof claim.claimedAt !== 'string' || Number.isNaN(Date.parse(claim.claimedAt))) return '.claimedAt must be an RFC 3339 time';
  if (claim.generation !== undefined && (typeof claim.generation !== 'number' || !Number.isSafeInteger(claim.generation) || claim.generation < 1)) return '.generation must be a positive integer';
  return undefined;
}

export function isPoolClaim(value: unknown): value is PoolClaim {
  return poolClaimProblem(value) === undefined;
}

/** The claim's JSON Schema, for the documents. */
export const POOL_CLAIM_SCHEMA: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['pool', 'member', 'memberUid', 'vmid', 'node', 'claimedAt'],
  properties: {
    pool: { type: 'string', description: 'The warm pool (pools[].name).' },
    member: { type: 'string', description: "The member's name (pvep-pool-<pool>-<n>), which its VM carries until the claim renames it." },
    memberUid: { type: 'string', description: "The member's uid, in its VM's mark until the claim renames it." },
    vmid: { type: 'integer', minimum: 100, maximum: 999999999, description: "The member's VMID." },
    node: { type: 'string', description: 'The node the member runs on.' },
    address: { type: 'string', description: "The member's IPv4 address when it became idle." },
    claimedAt: { type: 'string', format: 'date-time', description: 'When the accept claimed it.' },
    generation: { type: 'integer', minimum: 1, description: "The claimer's generation that claimed; a job of a later one (an in-place change) changes the renamed VM after the claim." },
  },
};

/** The most bytes a claim takes as JSON: its keys, names of 63, a uid of 64, a VMID, a quad, a time. */
export const POOL_CLAIM_MAX_JSON_BYTES = 1024;
