// The OpenAPI schemas of GET /v1/pools (SPEC 30), as src/pools/pool-view.ts answers.
type Schema = Record<string, unknown>;

const count = (description: string): Schema => ({ type: 'integer', minimum: 0, description });

export const poolSchemas: Record<string, Schema> = {
  Pool: {
    type: 'object',
    required: ['name', 'image', 'cores', 'memoryMiB', 'diskGiB', 'minIdle', 'maxIdle', 'maxAgeMinutes', 'idle', 'claimed', 'creating'],
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
    },
  },
  PoolList: { type: 'object', required: ['pools'], properties: { pools: { type: 'array', items: { $ref: '#/components/schemas/Pool' } } } },
};
