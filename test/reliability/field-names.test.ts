// Regression (found by bad-input.test.ts, SPEC 1 "unknown fields
// refused"): a field named like a member of Object.prototype
// (constructor, toString, __proto__...) was taken for a known field and
// silently dropped, so the request was accepted.
import { expect } from 'chai';
import { loadConfig } from '../../src/config/index.js';
import { limitsFromConfig, validateJobData, type JobName } from '../../src/job-table/schema.js';

const limits = limitsFromConfig(loadConfig({ env: {} }));
const PROTOTYPE_NAMES = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__proto__', '__defineGetter__'];

describe('job data: fields named like Object.prototype members are unknown fields (SPEC 1)', () => {
  for (const job of ['create', 'delete', 'check'] as JobName[]) {
    for (const field of PROTOTYPE_NAMES) {
      it(`${job} refuses "${field}"`, () => {
        // Parsed from JSON, as the API and most callers give it: an own key.
        const input = JSON.parse(`{"name":"vm-1",${JSON.stringify(field)}:1}`) as unknown;
        const result = validateJobData(job, input, limits);
        expect(result.ok).to.equal(false);
        if (!result.ok) expect(result.errors).to.deep.include({ field, message: 'is not a known field' });
      });
    }
  }
});
