// SPEC 3: a held name lock, on a clock the test moves. It renews every
// third of its TTL; a refused renewal, or none that succeeds for a whole
// TTL (Redis down, or a starved timer), loses it once, with the first
// reason; once released it neither renews nor loses. And a release writes
// no last-known state when it has none (issue 19).
import { expect } from 'chai';
import sinon from 'sinon';
import { keys } from '../../src/redis-keys.js';
import { holdLock, NameLocks } from '../../src/queue/name-lock.js';
import type { HeldLock } from '../../src/queue/name-lock.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { RenewalTimer } from '../../src/queue/renewal-timer.js';
import { ScriptBatch } from '../../src/redis-script.js';
import type { LastKnownWrite } from '../../src/desired-state.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';

const TTL = 3000;

/** NameLocks as holdLock uses it, each renewal answered by the test. */
class ScriptedLocks {
  /** NameLocks's own renewal timer, as holdLock reads it. */
  readonly renewals = new RenewalTimer();
  renewed = 0;
  answer: () => Promise<boolean> = () => Promise.resolve(true);
  released: unknown[][] = [];
  releaseFails = false;

  renew(_name: string): Promise<boolean> {
    this.renewed += 1;
    return this.answer();
  }

  release(name: string, token: string): Promise<boolean> {
    this.released.push([name, token]);
    return this.releaseFails ? Promise.reject(new Error('Connection is closed.')) : Promise.resolve(true);
  }

  releaseWriting(name: string, token: string, write: LastKnownWrite): Promise<boolean> {
    this.released.push([name, token, write]);
    return this.releaseFails ? Promise.reject(new Error('Connection is closed.')) : Promise.resolve(true);
  }
}

function thrownBy(held: HeldLock): string | undefined {
  try {
    held.check();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

describe('a held name lock on a moving clock (SPEC 3)', () => {
  let clock: sinon.SinonFakeTimers;
  let locks: ScriptedLocks;
  let held: HeldLock;

  beforeEach(() => {
    clock = sinon.useFakeTimers({ now: 1_000_000, toFake: ['Date', 'performance', 'setTimeout', 'clearTimeout'] });
    locks = new ScriptedLocks();
    held = holdLock(locks as unknown as NameLocks, 'web-1', 'tok-1', TTL);
  });

  afterEach(() => {
    clock.restore();
  });

  it('renews every third of its TTL and stays held while renewals succeed', async () => {
    await clock.tickAsync(TTL / 3 - 1);
    expect(locks.renewed).to.equal(0);
    await clock.tickAsync(1);
    expect(locks.renewed).to.equal(1);
    await clock.tickAsync(3 * TTL);
    expect(locks.renewed).to.equal(10);
    expect(held.lost.aborted).to.equal(false);
    expect(thrownBy(held)).to.equal(undefined);
  });

  it('renews at least every 10 ms, whatever the TTL', async () => {
    holdLock(locks as unknown as NameLocks, 'web-2', 'tok-2', 15);
    await clock.tickAsync(10);
    expect(locks.renewed).to.equal(1);
  });

  it('a refused renewal loses the lock, saying so, and aborts its signal', async () => {
    locks.answer = () => Promise.resolve(false);
    await clock.tickAsync(TTL / 3);
    expect(held.lost.aborted).to.equal(true);
    expect((held.lost.reason as Error).message).to.equal('lost the lock of web-1: it expired and was not ours any more');
    expect(thrownBy(held)).to.equal('lost the lock of web-1: it expired and was not ours any more');
  });

  it('renewals that fail (Redis down) lose it only once a whole TTL passed since the last success', async () => {
    locks.answer = () => Promise.reject(new Error('Connection is closed.'));
    await clock.tickAsync(2 * (TTL / 3));
    expect(held.lost.aborted).to.equal(false, 'two thirds of a TTL without renewal is not lost yet');
    expect(thrownBy(held)).to.equal(undefined);
    await clock.tickAsync(TTL / 3);
    expect(held.lost.aborted).to.equal(true);
    expect((held.lost.reason as Error).message).to.equal('lost the lock of web-1: it could not be renewed within its TTL');
  });

  it('check() throws once a whole TTL passed without a renewal (a starved timer), not a moment before', async () => {
    locks.answer = () => new Promise<boolean>(() => undefined); // never answers
    await clock.tickAsync(TTL - 1);
    expect(thrownBy(held)).to.equal(undefined);
    await clock.tickAsync(1);
    expect(thrownBy(held)).to.equal('lost the lock of web-1: it was not renewed within its TTL');
    expect(held.lost.aborted).to.equal(true);
  });

  it('a lock is lost once: a later refusal keeps the first reason', async () => {
    locks.answer = () => new Promise<boolean>(() => undefined);
    await clock.tickAsync(TTL);
    const first = thrownBy(held);
    locks.answer = () => Promise.resolve(false);
    await clock.tickAsync(TTL);
    expect(thrownBy(held)).to.equal(first);
    expect((held.lost.reason as Error).message).to.equal(first);
  });

  it('once released it renews no more, and a renewal answered after the release loses nothing', async () => {
    let refuse: (ok: boolean) => void = () => undefined;
    locks.answer = () => new Promise<boolean>((resolve) => (refuse = resolve));
    await clock.tickAsync(TTL / 3);
    expect(locks.renewed).to.equal(1);
    await held.release();
    refuse(false);
    await clock.tickAsync(3 * TTL);
    expect(locks.renewed).to.equal(1);
    expect(held.lost.aborted).to.equal(false);
    expect(locks.released).to.deep.equal([['web-1', 'tok-1']]);
  });

  it('release ignores a failure (the lock expires by itself); releaseWriting passes it on, and both stop renewing', async () => {
    locks.releaseFails = true;
    await held.release();
    const writing = holdLock(locks as unknown as NameLocks, 'web-3', 'tok-3', TTL);
    const write: LastKnownWrite = { lastKnown: { state: 'Running', at: 'then' } };
    let thrown: unknown;
    await writing.releaseWriting(write).catch((err: unknown) => (thrown = err));
    expect(String(thrown)).to.contain('Connection is closed.');
    expect(locks.released).to.deep.equal([['web-1', 'tok-1'], ['web-3', 'tok-3', write]]);
    await clock.tickAsync(3 * TTL);
    expect(locks.renewed).to.equal(0);
  });

  it('locks taken at different moments share one timer, each renewed at its own thirds; none held, no timer left (SPEC 21)', async () => {
    const renewedNames: string[] = [];
    locks.renew = (name: string) => {
      renewedNames.push(name);
      return Promise.resolve(true);
    };
    await clock.tickAsync(TTL / 6);
    const second = holdLock(locks as unknown as NameLocks, 'web-5', 'tok-5', TTL);
    expect(clock.countTimers()).to.equal(1);
    await clock.tickAsync(TTL / 6); // web-1's first third
    expect(renewedNames).to.deep.equal(['web-1']);
    await clock.tickAsync(TTL / 6); // web-5's first third
    expect(renewedNames).to.deep.equal(['web-1', 'web-5']);
    await second.release();
    await clock.tickAsync(TTL); // three more of web-1's, none of web-5's
    expect(renewedNames).to.deep.equal(['web-1', 'web-5', 'web-1', 'web-1', 'web-1']);
    await held.release();
    expect(clock.countTimers()).to.equal(0);
    await clock.tickAsync(TTL);
    expect(renewedNames).to.have.length(5);
  });

  it('a wall clock set back an hour delays no renewal (the timer runs on the monotonic clock)', async () => {
    clock.setSystemTime(Date.now() - 3_600_000);
    await clock.tickAsync(TTL / 3);
    expect(locks.renewed).to.equal(1);
  });

  it('a wall clock set forward an hour loses nothing: the TTL is counted on the monotonic clock', async () => {
    clock.setSystemTime(Date.now() + 3_600_000);
    expect(thrownBy(held)).to.equal(undefined);
    await clock.tickAsync(TTL / 3);
    expect(held.lost.aborted).to.equal(false);
  });

  it("the lock's controller is the one passed in: its signal is the lock's", () => {
    const controller = new AbortController();
    const own = holdLock(locks as unknown as NameLocks, 'web-4', 'tok-4', TTL, controller);
    expect(own.lost).to.equal(controller.signal);
  });
});

describe('release writes nothing without a last-known state (SPEC 3)', function () {
  let h: Harness;

  afterEach(async () => {
    sinon.restore();
    await h.close();
  });

  it('an answer the lock script never gives is an error naming it, never a lock taken', async () => {
    h = createHarness('lock-odd-answer');
    const locks = new NameLocks(h.redis, h.prefix);
    for (const answer of ['nonsense', ['maybe', null, null, null]]) {
      sinon.restore();
      sinon.stub(ScriptBatch.prototype, 'call').resolves(answer);
      let thrown: unknown;
      await locks.tryAcquireReading('odd', 5000).catch((err: unknown) => (thrown = err));
      expect((thrown as Error).message).to.equal(`unexpected answer from the lock script: ${JSON.stringify(answer)}`);
    }
  });

  it("a plain release leaves the record's last-known state as it was", async () => {
    h = createHarness('lock-release-plain');
    const locks = new NameLocks(h.redis, h.prefix);
    const registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
    await registry.recordPresent('r1', 'u1', { name: 'r1', uid: 'u1' });
    const token = (await locks.tryAcquire('r1', 5000)) ?? '';
    expect(await locks.release('r1', token)).to.equal(true);
    expect((await registry.get('r1'))?.lastKnown).to.equal(undefined);
    expect(await h.redis.hget(keys.desired(h.prefix, 'r1'), 'lastKnown')).to.equal(null, 'no field written at all');
    expect(await locks.isHeld('r1')).to.equal(false);
  });
});
