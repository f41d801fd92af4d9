// SPEC 1: a create's progress is a number for Bull Board's bar, its steps
// spread evenly up to the last one the create will reach.
import { expect } from 'chai';
import { CREATE_STEPS, createStepPercent } from '../../jobs/result.schema.js';

describe('create steps as progress (SPEC 1)', () => {
  it('with waitForAddress, each step a seventh further, address at 100', () => {
    expect(CREATE_STEPS.map((step) => createStepPercent(step, true))).to.deep.equal([14, 29, 43, 57, 71, 86, 100]);
  });

  it('without waitForAddress, running is the last step: 100', () => {
    expect(CREATE_STEPS.slice(0, 6).map((step) => createStepPercent(step, false))).to.deep.equal([17, 33, 50, 67, 83, 100]);
  });
});
