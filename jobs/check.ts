// check (SPEC 1, 3, 10): takes no lock; reports Provisioning while a
// create or delete holds the name, else what the provider sees; NotFound
// for a name another tenant holds now than the one that asked (SPEC 34).
import { NotFoundError } from '../src/errors.js';
import type { VmObservation, VmRef } from '../src/provider/types.js';
import type { CheckResult } from '../src/job-table/result.schema.js';
import { validateStoredJobData } from '../src/job-table/schema.js';
import { defineJob } from './types.js';
import { ownerOf } from '../src/tenants/types.js';
import type { JobContext, JobDeps } from './types.js';

/** The name's uid, and the VMID the registry last saw its VM at (SPEC 28: read there even under another name). */
async function refOf(name: string, deps: JobDeps, ctx: JobContext): Promise<VmRef | undefined> {
  const record = await deps.registry.get(name);
  const knownVmid = record?.lastKnown?.vmid;
  if (record?.state === 'present' && record.uid !== undefined) return { name, uid: record.uid, ...(knownVmid !== undefined ? { knownVmid } : {}) };
  const found = await deps.provider.findByName(name, ctx);
  const uid = found.find((vm) => vm.ours === true && vm.uid !== undefined)?.uid;
  return uid === undefined ? undefined : { name, uid };
}

async function observe(name: string, deps: JobDeps, ctx: JobContext): Promise<VmObservation> {
  if (await deps.isNameLocked(name)) return { state: 'Provisioning' };
  const ref = await refOf(name, deps, ctx);
  if (ref === undefined) return { state: 'NotFound' };
  try {
    return await deps.provider.get(ref, ctx);
  } catch (err) {
    if (err instanceof NotFoundError) return { state: 'NotFound' };
    throw err;
  }
}

export const checkJob = defineJob({
  name: 'check',
  validate: (data, limits) => validateStoredJobData('check', data, limits),
  async handler(data, deps, ctx) {
    // SPEC 34: the name went to another tenant since this check was asked: its VM is not the asker's to see.
    if (ownerOf(await deps.registry.get(data.name)) !== ownerOf(data)) {
      await ctx.log?.('the name belongs to another tenant now: nothing to report');
      return { state: 'NotFound' } satisfies CheckResult;
    }
    const seen = await observe(data.name, deps, ctx);
    const result: CheckResult = { state: seen.state, address: seen.address, vmid: seen.vmid, node: seen.node };
    ctx.setLastKnown(data.name, { ...result, at: new Date().toISOString() });
    return result;
  },
});
