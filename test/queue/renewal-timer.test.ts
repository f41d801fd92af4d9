// SPEC 3: the one renewal timer of a NameLocks. A lock taken while the
// loop is busy past another's renewal (its timer due, not yet run) must
// not push that renewal back: it still runs at the next turn, and a lock
// late by a whole period is next due a period from then.
import { expect } from 'chai';
import sinon from 'sinon';
import { RenewalTimer } from '../../src/queue/renewal-timer.js';

describe('the renewal timer under a busy event loop (SPEC 3)', () => {
  let clock: sinon.SinonFakeTimers;
  let now: number;
  let timer: RenewalTimer;
  let renewed: string[];

  beforeEach(() => {
    clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    now = 0;
    timer = new RenewalTimer(() => now);
    renewed = [];
  });

  afterEach(() => clock.restore());

  it('a lock taken while a renewal is overdue leaves that renewal due at once', async () => {
    timer.add(1000, () => renewed.push('a'));
    now = 1500; // the loop was busy past a's renewal; its timer has not run yet
    timer.add(1000, () => renewed.push('b'));
    await clock.tickAsync(1);
    expect(renewed).to.deep.equal(['a']);
  });

  it('locks taken every busy turn never starve an earlier lock of its renewals', async () => {
    timer.add(1000, () => renewed.push('a'));
    for (let turn = 1; turn <= 3; turn += 1) {
      now = turn * 1000 + 500;
      timer.add(10_000, () => renewed.push('other'));
      await clock.tickAsync(1);
    }
    expect(renewed).to.deep.equal(['a', 'a', 'a']);
  });

  it('a renewal late by a whole period is next due a period from when it ran', async () => {
    timer.add(1000, () => renewed.push('a'));
    now = 2500;
    await clock.tickAsync(1000);
    expect(renewed).to.deep.equal(['a']);
    now = 3400;
    await clock.tickAsync(1000);
    expect(renewed).to.deep.equal(['a']);
    now = 3500;
    await clock.tickAsync(1000);
    expect(renewed).to.deep.equal(['a', 'a']);
  });
});
