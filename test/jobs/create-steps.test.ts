// SPEC 1: a create's progress is a number for Bull Board's bar, its steps
// spread evenly up to the last one the create will reach; `restarted`, an
// in-place change's step only (SPEC 2, 13), shares the step before it.
import { expect } from 'chai';
import { CREATE_STEPS, createStepPercent } from '../../src/job-table/result.schema.js';

const usual = CREATE_STEPS.filter((step) => step !== 'restarted');

describe('create steps as progress (SPEC 1)', () => {
  it('with waitForAddress, each step a seventh further, address at 100', () => {
    expect(usual.map((step) => createStepPercent(step, true))).to.deep.equal([14, 29, 43, 57, 71, 86, 100]);
  });

  it('without waitForAddress, running is the last step: 100', () => {
    expect(usual.slice(0, 6).map((step) => createStepPercent(step, false))).to.deep.equal([17, 33, 50, 67, 83, 100]);
  });

  it('restarted stands where resized does, between it and started', () => {
    expect(CREATE_STEPS.indexOf('restarted')).to.equal(CREATE_STEPS.indexOf('resized') + 1);
    expect(createStepPercent('restarted', true)).to.equal(createStepPercent('resized', true));
    expect(createStepPercent('restarted', true)).to.be.below(createStepPercent('started', true));
  });
});
