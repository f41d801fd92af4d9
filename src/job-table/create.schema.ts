// The create job's data (SPEC 1, 24): the one table of a create's fields.
// The producer, the HTTP API and its OpenAPI document, the CLI's flags,
// the worker and the provider's own bounds check all read it, and the
// TypeScript types below are inferred from it, so nothing the worker
// would refuse is accepted at the door. Callers may leave out uid (the
// producer takes the present name's, or draws one) and the sizes (config
// defaults); the stored job always has uid and the generation the
// producer recorded (SPEC 2).
import { ADDRESS_LEASE_MAX_JSON_BYTES, ADDRESS_LEASE_SCHEMA, addressLeaseProblem } from '../addresses/lease-shape.js';
import type { AddressLease } from '../addresses/types.js';
import { POOL_CLAIM_MAX_JSON_BYTES, POOL_CLAIM_SCHEMA, poolClaimProblem } from '../pools/claim-shape.js';
import { DEFAULT_CLUSTER } from '../config/clusters.js';
import { POOL_NAME_RE } from '../config/pools.js';
import type { PoolClaim } from '../pools/types.js';
import { BRIDGE, TEXT_MAX_BYTES, generationField, nameField, requiredField, tenantField, uidField } from './fields.js';
import type { DataOf, FieldSpec, JobLimits, ObjectRule, StringRule, StringsRule } from './fields.js';
import { CREATE_STEPS } from './result.schema.js';
import type { InPlaceField } from './result.schema.js';
import { SSH_KEY_TYPES, sshKeyProblem } from './ssh-key.js';

/** Proxmox's own floor for `memory` (apidata.json: `current`, minimum 16). */
const MIN_MEMORY_MIB = 16;

/** At most this many sshKeys, each at most SSH_KEY_MAX_BYTES (an RSA key of 16384 bits is about 2.8 KB of base64). */
export const SSH_KEYS_MAX = 32;
export const SSH_KEY_MAX_BYTES = 8 * 1024;

const text = (description: string, flag: string) =>
  ({
    presence: 'optional',
    flag: { name: flag, file: true },
    rule: { kind: 'string', description, maxBytes: TEXT_MAX_BYTES },
  }) satisfies FieldSpec<StringRule>;

/** What a create makes: the VM's fields (the provider's spec, the stored job). */
const createVmFields = {
  name: nameField,
  uid: uidField,
  node: {
    presence: 'optional',
    flag: { name: 'node' },
    rule: { kind: 'string', description: 'Configured node to place the VM on; the one serving the image with most free memory when absent', oneOf: (l) => l.nodes },
  },
  cluster: {
    presence: 'optional',
    flag: { name: 'cluster' },
    rule: {
      kind: 'string',
      description: 'Configured Proxmox cluster to place the VM in (SPEC 32, GET /v1/clusters); when absent, the name\'s cluster if it has one, else a healthy one that serves the image (most free memory, then the configured order)',
      // The one-cluster form's one cluster is `default` (GET /v1/clusters lists it); the door records no cluster there.
      oneOf: (l) => (l.clusters === undefined ? [DEFAULT_CLUSTER] : l.clusters.map((cluster) => cluster.name)),
    },
  },
  image: {
    presence: 'defaulted',
    default: (l) => l.defaultImage,
    flag: { name: 'image' },
    rule: {
      kind: 'string',
      description: 'Image to clone (SPEC 27, GET /v1/images); proxmox.defaultImage when absent',
      oneOf: (l) => Object.keys(l.images),
      withOthers: (image, checked, l) => {
        const serving = l.images[image] ?? [];
        const node = checked.node;
        return typeof node === 'string' && !serving.includes(node) ? `${image} is not served by node ${node} (served by: ${serving.join(', ') || 'no node'})` : undefined;
      },
    },
  },
  cores: {
    presence: 'defaulted',
    default: (l) => l.defaults.cores,
    flag: { name: 'cores' },
    rule: { kind: 'integer', description: 'Cores', min: 1, max: (l) => l.limits.maxCores },
  },
  memoryMiB: {
    presence: 'defaulted',
    default: (l) => l.defaults.memoryMiB,
    flag: { name: 'memory-mib' },
    rule: { kind: 'integer', description: `Memory in MiB (Proxmox needs at least ${MIN_MEMORY_MIB})`, min: MIN_MEMORY_MIB, max: (l) => l.limits.maxMemoryMiB },
  },
  diskGiB: {
    presence: 'defaulted',
    default: (l) => l.defaults.diskGiB,
    flag: { name: 'disk-gib' },
    rule: { kind: 'integer', description: 'Boot disk size in GiB', min: 1, max: (l) => l.limits.maxDiskGiB },
  },
  userData: text(`cloud-init user-data (UTF-8, at most ${TEXT_MAX_BYTES} bytes)`, 'user-data'),
  networkConfig: text(`cloud-init network-config (UTF-8, at most ${TEXT_MAX_BYTES} bytes)`, 'network-config'),
  sshKeys: {
    presence: 'optional',
    // Each --ssh-key names a file of one or more key lines (src/cli/key-files.ts).
    flag: { name: 'ssh-key', file: true },
    rule: {
      kind: 'strings',
      description: `OpenSSH public keys the VM's default user accepts, with or without userData (SPEC 27); at most ${SSH_KEYS_MAX}`,
      maxItems: SSH_KEYS_MAX,
      itemMaxBytes: SSH_KEY_MAX_BYTES,
      itemDescription: `One key line, "<type> <base64> [comment]"; type one of ${SSH_KEY_TYPES.join(', ')}; RSA at least 2048 bits`,
      itemProblem: sshKeyProblem,
    },
  } satisfies FieldSpec<StringsRule>,
  vlanTag: { presence: 'optional', flag: { name: 'vlan-tag' }, rule: { kind: 'integer', description: 'VLAN tag of net0', min: 1, max: 4094 } },
  bridge: {
    presence: 'optional',
    flag: { name: 'bridge' },
    rule: { kind: 'string', description: 'Bridge of net0', maxBytes: 15, pattern: BRIDGE, patternText: 'a bridge name (a letter, then up to 14 of A-Z a-z 0-9 _ . -)' },
  },
  waitForAddress: {
    presence: 'defaulted',
    default: () => true,
    flag: { name: 'no-wait-for-address', sets: false },
    rule: { kind: 'boolean', description: 'End the job only when the guest agent reports an address (SPEC 10)' },
  },
} satisfies Record<string, FieldSpec>;

export const LEASE_ACTIONS = ['delete', 'stop'] as const;

/**
 * A create's lease (SPEC 31): when and how its VM ends unless renewed.
 * The accept records it on the name (src/queue/intent.ts), not in the job:
 * a VM is made the same whatever its lease, and a stored job stays valid
 * when leases.maxSeconds shrinks.
 */
export const createLeaseFields = {
  ttlSeconds: {
    presence: 'defaulted',
    default: (l) => l.leases.defaultSeconds,
    flag: { name: 'ttl' },
    rule: {
      kind: 'integer',
      description: 'Lease (SPEC 31): the VM ends this many seconds after the accept unless renewed (PUT /v1/vms/{name}/lease); 0: no lease; leases.defaultSeconds when absent. A create of a present name with another ttlSeconds moves its lease from now',
      min: 0,
      max: (l) => l.leases.maxSeconds,
    },
  },
  onExpiry: {
    presence: 'defaulted',
    default: (l) => l.leases.onExpiry,
    flag: { name: 'on-expiry' },
    rule: {
      kind: 'string',
      description: 'What runs when the lease expires: delete (the VM and the name go) or stop (the VM stops, the name stays recorded); leases.onExpiry when absent',
      maxBytes: 6,
      pattern: /^(delete|stop)$/,
      patternText: 'delete or stop',
    },
  },
} satisfies Record<string, FieldSpec>;

/**
 * How the door makes the VM (SPEC 30): from a warm pool's idle member when
 * the create's shape is a pool's, unless the caller asks the cold way.
 * Read by the accept (src/queue/intent.ts), not stored: the job carries
 * the claim itself, or none.
 */
export const createDoorFields = {
  pool: {
    presence: 'defaulted',
    default: () => true,
    flag: { name: 'no-pool', sets: false },
    rule: { kind: 'boolean', description: "false: never take a warm pool's VM (SPEC 30)" },
  },
} satisfies Record<string, FieldSpec>;

/** What a caller sends: the VM's fields, its lease, and whether it may come from a warm pool. */
export const createInputFields = { ...createVmFields, ...createLeaseFields, ...createDoorFields } satisfies Record<string, FieldSpec>;

/** What the provider gets (SPEC 13): the VM's fields with the uid settled. */
export const createSpecFields = { ...createVmFields, uid: requiredField(uidField) } satisfies Record<string, FieldSpec>;

/**
 * The last step the create reached (SPEC 1), written into the stored job
 * by the worker as it goes: the job's progress is a number for Bull
 * Board's bar, so the step itself lives here (and in the job's log).
 */
const stepField = {
  presence: 'optional',
  rule: { kind: 'string', description: `The last step the create reached: ${CREATE_STEPS.join(', ')}`, oneOf: () => [...CREATE_STEPS] },
} satisfies FieldSpec<StringRule>;

/**
 * The address lease the door took for the create (SPEC 29): written by the
 * accept (src/queue/intent.ts) like the generation, never by a caller;
 * the worker builds the seed's static network-config from it. Absent: DHCP.
 */
const addressRule: ObjectRule<AddressLease> = {
  kind: 'object',
  description: "The VM's static address from its network's pool (SPEC 29), taken at the accept; absent on a network without a pool (DHCP)",
  problem: addressLeaseProblem,
  schema: ADDRESS_LEASE_SCHEMA,
  maxJsonBytes: ADDRESS_LEASE_MAX_JSON_BYTES,
};
const addressField = { presence: 'optional', rule: addressRule } satisfies FieldSpec<ObjectRule<AddressLease>>;

/**
 * The idle member the door claimed for the create (SPEC 30): written by the
 * accept, never by a caller; the worker renames that VM instead of
 * cloning. Absent: the cold way.
 */
const claimRule: ObjectRule<PoolClaim> = {
  kind: 'object',
  description: "The warm pool's idle VM the create claimed at the accept (SPEC 30); absent: the VM is cloned (the cold way)",
  problem: poolClaimProblem,
  schema: POOL_CLAIM_SCHEMA,
  maxJsonBytes: POOL_CLAIM_MAX_JSON_BYTES,
};
const claimField = { presence: 'optional', rule: claimRule } satisfies FieldSpec<ObjectRule<PoolClaim>>;

/** A member's create (SPEC 30): the pool it makes the VM for; written only by the pool's refill. */
const poolMemberField = {
  presence: 'optional',
  rule: { kind: 'string', description: "The warm pool this create makes an idle member for (SPEC 30); set by the pool's refill only", maxBytes: 20, pattern: POOL_NAME_RE, patternText: 'a pool name' },
} satisfies FieldSpec<StringRule>;

export const createStoredFields = { ...createSpecFields, generation: generationField, address: addressField, claim: claimField, poolMember: poolMemberField, tenant: tenantField, step: stepField } satisfies Record<string, FieldSpec>;

/** A create's lease terms as validated: ttlSeconds 0 is no lease. */
export type CreateLeaseInput = DataOf<typeof createLeaseFields>;
/** A create as validated from a caller: defaults filled, uid maybe absent. */
export type CreateJobInput = DataOf<typeof createInputFields>;
/** A create as the provider makes it (src/provider/types.ts CreateSpec). */
export type CreateSpec = DataOf<typeof createSpecFields>;
/** A create as stored in its job. */
export type CreateJobData = DataOf<typeof createStoredFields>;

/**
 * The fields of a create that say what VM it makes (SPEC 2): a create
 * whose values differ from the present spec's in any of them is a
 * conflict. Not uid (its own rule) nor waitForAddress (how the job
 * waits, not what it makes). A spec recorded before images has no
 * `image`: it means the default image (specFieldDefaults).
 */
export const SPEC_FIELDS = ['node', 'image', 'cores', 'memoryMiB', 'diskGiB', 'userData', 'networkConfig', 'sshKeys', 'vlanTag', 'bridge'] as const satisfies readonly (keyof CreateSpec)[];

/**
 * The spec fields a present VM takes in place (SPEC 2, 13): cores and
 * memory to any value, the boot disk only larger (Proxmox grows a disk,
 * never shrinks one, F20). A create of a present name that differs from
 * its spec in these alone changes the VM instead of a conflict.
 */
export const IN_PLACE_FIELDS = { cores: 'any', memoryMiB: 'any', diskGiB: 'grow' } as const satisfies Record<InPlaceField & (typeof SPEC_FIELDS)[number], 'any' | 'grow'>;

/** What a spec field absent from a recorded spec means, for the SPEC 2 comparison: a spec from before images meant the default image. */
export function specFieldDefaults(limits: Pick<JobLimits, 'defaultImage'>): Partial<Record<(typeof SPEC_FIELDS)[number], unknown>> {
  return { image: limits.defaultImage };
}
