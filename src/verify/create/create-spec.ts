// The create `verify --create` runs: the defaults of config, as a job
// naming only its name, uid and node would get them (SPEC 1).
import type { Config } from '../../config/types.js';
import { createSpecFields } from '../../job-table/create.schema.js';
import { limitsFromConfig, validateFields } from '../../job-table/fields.js';
import { CREATE_STEPS, type CreateStep } from '../../job-table/result.schema.js';
import type { CreateSpec } from '../../provider/types.js';

export function createSpecOn(config: Config, given: { name: string; uid: string; node: string }): CreateSpec {
  const checked = validateFields<CreateSpec>(createSpecFields, { ...given, waitForAddress: true }, limitsFromConfig(config));
  if (!checked.ok) throw new Error(`verify --create on ${given.node}: ${checked.errors.map((e) => `${e.field} ${e.message}`).join('; ')}`);
  return checked.value;
}

/** The step a fresh create works towards after `step` (the first one before any): `restarted` is an in-place change's only. */
export function nextStep(step: CreateStep | undefined): CreateStep | undefined {
  const fresh: readonly CreateStep[] = CREATE_STEPS.filter((s) => s !== 'restarted');
  return step === undefined ? fresh[0] : fresh[fresh.indexOf(step) + 1];
}
