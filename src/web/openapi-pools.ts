// The OpenAPI document's part on warm pools (SPEC 30): where a create's VM
// comes from, on its answer, and GET /v1/pools as src/pools/pool-view.ts
// answers. The create's `pool` field and the job's `claim` are documented
// from the field table (create.schema.ts).
import type { CreateSource } from '../pools/types.js';

const ORIGINS: readonly CreateSource[] = ['pool', 'cold'];

/** A create's answer: its VM an idle member of a warm pool, or a clone of its own. */
export const originAnswerProperties: Record<string, Record<string, unknown>> = {
  origin: {
    type: 'string',
    enum: ORIGINS,
    description:
      "A create's (SPEC 30): pool when it claimed a warm pool's idle VM at the accept (its job renames that VM and writes the sshKeys; a repeat answers pool when its create did), cold when its VM is cloned (no pool of its shape, the pool empty, userData or networkConfig given, or pool false).",
  },
  warmPool: {
    type: 'string',
    description: "A create's that tried a warm pool (SPEC 30): that pool, when the create claimed from it (origin pool) or was a fresh create of its shape that found no idle VM (origin cold: a miss). Absent on a repeat that claimed nothing, an in-place change and a stopped name created again.",
  },
};

type Schema = Record<string, unknown>;

const count = (description: string): Schema => ({ type: 'integer', minimum: 0, description });

export const poolSchemas: Record<string, Schema> = {
  Pool: {
    type: 'object',
    required: ['name', 'image', 'cores', 'memoryMiB', 'diskGiB', 'minIdle', 'maxIdle', 'maxAgeMinutes', 'idle', 'claimed', 'creating', 'target'],
    properties: {
      name: { type: 'string', description: 'The pool (pools[].name); its VMs are named pvep-pool-<name>-<n>.' },
      image: { type: 'string', description: 'The shape a create must have to claim from the pool: image, cores, memoryMiB, diskGiB, bridge, vlanTag and node (absent: a create naming no node).' },
      cores: { type: 'integer' },
      memoryMiB: { type: 'integer' },
      diskGiB: { type: 'integer' },
      bridge: { type: 'string' },
      vlanTag: { type: 'integer' },
      node: { type: 'string' },
      minIdle: { type: 'integer', description: 'Idle VMs the refill keeps ready.' },
      maxIdle: { type: 'integer', description: 'The most VMs (idle and creating) the pool holds.' },
      maxAgeMinutes: { type: 'integer', description: 'An idle VM older than this is replaced; 0: never.' },
      idle: count('VMs booted, ready and claimable now.'),
      claimed: count('VMs a create took, not yet renamed to it.'),
      creating: count('VMs the refill is making.'),
      target: count('What the refill fills idle and creating VMs up to now: minIdle plus the creates that tried to claim within the time a VM of the pool takes to become idle (measured, 120 s before any), at most maxIdle.'),
    },
  },
  PoolList: { type: 'object', required: ['pools'], properties: { pools: { type: 'array', items: { $ref: '#/components/schemas/Pool' } } } },
};
