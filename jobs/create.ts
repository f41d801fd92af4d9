// create (SPEC 1, 13): the provider makes the VM, step by step, under the
// name's lock; every step is safe to repeat, so a retry resumes.
import { validateStoredJobData } from './schema.js';
import { defineJob, isOlderGeneration } from './types.js';

export const createJob = defineJob({
  name: 'create',
  validate: (data, limits) => validateStoredJobData('create', data, limits),
  lockedName: (data) => data.name,
  superseded: (data, record) => isOlderGeneration(data.generation, record),
  async handler(data, deps, ctx) {
    const { generation: _generation, ...spec } = data;
    const result = await deps.provider.create(spec, ctx);
    const lastKnown = { state: result.state, vmid: result.vmid, node: result.node, at: new Date().toISOString() };
    await deps.registry.recordLastKnown(data.name, result.address === undefined ? lastKnown : { ...lastKnown, address: result.address });
    return result;
  },
});
