// SPEC 5: at most one sweep at a time across processes, against the real
// Redis (a unique prefix per run, removed afterwards).
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { keys } from '../../src/redis-keys.js';
import { withSweepLock } from '../../src/reconciler/sweep-lock.js';
import { scaledByLoad } from '../support/machine.js';

describe('sweep lock (SPEC 5, real Redis)', () => {
  const prefix = `test-recon-${randomUUID()}`;
  const key = keys.sweepLock(prefix);
  let first: Redis;
  let second: Redis;

  before(() => {
    first = new Redis('redis://127.0.0.1:6379');
    second = new Redis('redis://127.0.0.1:6379');
  });

  afterEach(async () => {
    const leftover = await first.keys(`${prefix}:*`);
    if (leftover.length > 0) await first.del(...leftover);
  });

  after(async () => {
    await first.quit();
    await second.quit();
  });

  it('keeps the key under the configured prefix', () => {
    expect(key.startsWith(`${prefix}:`)).to.equal(true);
  });

  it('runs one of two sweeps started at once and skips the other', async () => {
    let running = 0;
    let most = 0;
    const body = async (): Promise<string> => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 100));
      running--;
      return 'swept';
    };
    const results = await Promise.all([withSweepLock(first, key, 5000, body), withSweepLock(second, key, 5000, body)]);
    expect([...results].sort()).to.deep.equal(['skipped', 'swept']);
    expect(most).to.equal(1);
    expect(await first.exists(key)).to.equal(0);
  });

  it('lets the next sweep run once the first has finished', async () => {
    expect(await withSweepLock(first, key, 5000, () => Promise.resolve(1))).to.equal(1);
    expect(await withSweepLock(second, key, 5000, () => Promise.resolve(2))).to.equal(2);
  });

  it('releases the lock when the sweep throws', async () => {
    const failing = withSweepLock(first, key, 5000, () => Promise.reject(new Error('listing failed')));
    await failing.then(
      () => expect.fail('expected the sweep to throw'),
      (err: unknown) => expect((err as Error).message).to.equal('listing failed'),
    );
    expect(await first.exists(key)).to.equal(0);
  });

  it('renews the lock while a sweep outlasts its TTL', async () => {
    // 150 ms on a quiet machine; a renewal stalled past the TTL by the load would let the second in.
    const ttlMs = scaledByLoad(150);
    const outcome = await withSweepLock(first, key, ttlMs, async () => {
      await new Promise((resolve) => setTimeout(resolve, ttlMs * 2.5));
      return withSweepLock(second, key, ttlMs, () => Promise.resolve('second'));
    });
    expect(outcome).to.equal('skipped');
  });

  it('aborts the sweep at the first renewal that fails in Redis, before its key can expire and a second sweep start', async () => {
    const flaky = new Redis('redis://127.0.0.1:6379');
    try {
      const outcome = await withSweepLock(flaky, key, 600, async (signal) => {
        const renew = flaky.evalsha.bind(flaky);
        // From now on every renewal fails in Redis (a connection lost, a failover) instead of being refused.
        flaky.evalsha = () => Promise.reject(new Error('Connection is closed.'));
        // Two renewal ticks (every 200 ms) fail; the key (600 ms) has not expired yet.
        await new Promise((resolve) => setTimeout(resolve, 450));
        flaky.evalsha = renew;
        return signal.aborted ? 'aborted' : 'went on';
      });
      expect(outcome).to.equal('aborted');
    } finally {
      flaky.disconnect();
    }
  });

  it('never deletes a lock another process took after its own expired, and aborts the sweep that lost it', async () => {
    let aborted = false;
    const outcome = await withSweepLock(first, key, 600, async (signal) => {
      // Another process's lock replaces ours (ours expired while Redis stalled).
      await second.set(key, 'other-token', 'PX', 5000);
      // Its next renewal (every 200 ms) finds the other token and aborts: waited for, not slept on.
      aborted = await new Promise<boolean>((resolve) => {
        if (signal.aborted) resolve(true);
        signal.addEventListener('abort', () => resolve(true), { once: true });
        setTimeout(() => resolve(false), 10_000);
      });
      return 'done';
    });
    expect(outcome).to.equal('done');
    expect(aborted).to.equal(true);
    expect(await first.get(key)).to.equal('other-token');
  });
});
