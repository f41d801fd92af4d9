// docs/operations.md's route table names every field a create takes
// (SPEC 1, 6): the field table is the one source, the doc must follow it.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { createInputFields } from '../../src/job-table/create.schema.js';

describe('docs/operations.md (SPEC 1, 6)', () => {
  it('lists every create field in the POST /v1/vms row, and no other', () => {
    const row = readFileSync('docs/operations.md', 'utf8').split('\n').find((line) => line.startsWith('| `POST /v1/vms` |'));
    expect(row, 'the POST /v1/vms row').to.be.a('string');
    const body = /\(body: ([^)]*)\)/.exec(row ?? '')?.[1] ?? '';
    const named = [...body.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]);
    expect(named.sort()).to.deep.equal(Object.keys(createInputFields).sort());
  });
});
