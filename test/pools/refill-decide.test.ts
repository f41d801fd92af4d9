// SPEC 30: the refill's decision for one pool: members up to minIdle,
// never past maxIdle, and the idle ones of an old shape, past
// maxAgeMinutes, beyond maxIdle or of a pool no longer configured drained;
// with demand, up to minIdle plus the claims tried within the pool's lead
// time (base stock), at most maxIdle.
import { expect } from 'chai';
import { decideRefill, DEFAULT_LEAD_MS, leadTimeMs, refillTarget } from '../../src/pools/refill-decide.js';
import type { ListedMember, PoolConfig } from '../../src/pools/types.js';

const NOW = new Date('2026-12-03T08:00:00Z');
const pool: PoolConfig = { name: 'small', image: 'debian', cores: 1, memoryMiB: 512, diskGiB: 10, minIdle: 3, maxIdle: 4, maxAgeMinutes: 60 };

function member(n: number, extra: Partial<ListedMember> = {}): ListedMember {
  return { pool: 'small', name: `pvep-pool-small-${n}`, uid: `u${n}`, fingerprint: 'fp1', createdAt: '2026-12-03T07:50:00Z', idle: false, ...extra };
}
const idle = (n: number, readyAt = '2026-12-03T07:55:00Z', extra: Partial<ListedMember> = {}) => member(n, { idle: true, readyAt, ...extra });

describe('the refill decision (SPEC 30)', () => {
  it('creates members up to minIdle for an empty pool', () => {
    expect(decideRefill({ pool, fingerprint: 'fp1', members: [], now: NOW })).to.deep.equal({ create: 3, drain: [] });
  });

  it('counts creating and idle members, not claimed ones', () => {
    const members = [idle(1), member(2), idle(3, undefined, { idle: false, claimedBy: 'foo 1' })];
    expect(decideRefill({ pool, fingerprint: 'fp1', members, now: NOW })).to.deep.equal({ create: 1, drain: [] });
  });

  it('creates nothing when minIdle are there', () => {
    expect(decideRefill({ pool, fingerprint: 'fp1', members: [idle(1), idle(2), member(3)], now: NOW }).create).to.equal(0);
  });

  it('drains the oldest idle members beyond maxIdle', () => {
    const members = [idle(1, '2026-12-03T07:40:00Z'), idle(2, '2026-12-03T07:30:00Z'), idle(3), idle(4), member(5)];
    expect(decideRefill({ pool, fingerprint: 'fp1', members, now: NOW })).to.deep.equal({ create: 0, drain: [{ name: 'pvep-pool-small-2', reason: 'over-max' }] });
  });

  it('drains idle members past maxAgeMinutes and replaces them', () => {
    const members = [idle(1, '2026-12-03T06:59:00Z'), idle(2), idle(3)];
    expect(decideRefill({ pool, fingerprint: 'fp1', members, now: NOW })).to.deep.equal({ create: 1, drain: [{ name: 'pvep-pool-small-1', reason: 'too-old' }] });
  });

  it('keeps idle members for ever with maxAgeMinutes 0', () => {
    const members = [idle(1, '2020-01-01T00:00:00Z'), idle(2), idle(3)];
    expect(decideRefill({ pool: { ...pool, maxAgeMinutes: 0 }, fingerprint: 'fp1', members, now: NOW })).to.deep.equal({ create: 0, drain: [] });
  });

  it('drains the idle members of a changed shape and creates the new shape, a creating one of the old shape counting only against maxIdle', () => {
    const members = [idle(1), idle(2), member(3)];
    const plan = decideRefill({ pool, fingerprint: 'fp2', members, now: NOW });
    expect(plan.drain).to.deep.equal([
      { name: 'pvep-pool-small-1', reason: 'stale-shape' },
      { name: 'pvep-pool-small-2', reason: 'stale-shape' },
    ]);
    expect(plan.create).to.equal(3);
    expect(decideRefill({ pool: { ...pool, maxIdle: 3 }, fingerprint: 'fp2', members, now: NOW }).create, 'bounded by maxIdle').to.equal(2);
  });

  it('drains every idle member of a pool no longer configured and creates none', () => {
    const members = [idle(1), member(2), idle(3)];
    expect(decideRefill({ pool: undefined, fingerprint: undefined, members, now: NOW })).to.deep.equal({
      create: 0,
      drain: [
        { name: 'pvep-pool-small-1', reason: 'unconfigured' },
        { name: 'pvep-pool-small-3', reason: 'unconfigured' },
      ],
    });
  });

  it('drains again a member a drain took out of the idle set but never deleted (a crash between), and does not count it', () => {
    const members = [idle(1), idle(2), member(3, { readyAt: '2026-12-03T07:55:00Z' })];
    expect(decideRefill({ pool, fingerprint: 'fp1', members, now: NOW })).to.deep.equal({ create: 1, drain: [{ name: 'pvep-pool-small-3', reason: 'interrupted' }] });
  });

  it('drains a member still creating 30 minutes after it was added (stuck), and counts it neither as creating nor against maxIdle; one taken for that drain is drained again', () => {
    const stuck = member(1, { createdAt: '2026-12-03T07:29:00Z' });
    const young = member(2, { createdAt: '2026-12-03T07:31:00Z' });
    expect(decideRefill({ pool, fingerprint: 'fp1', members: [stuck, young, idle(3)], now: NOW })).to.deep.equal({ create: 1, drain: [{ name: 'pvep-pool-small-1', reason: 'stuck' }] });
    expect(decideRefill({ pool: undefined, fingerprint: undefined, members: [stuck, young], now: NOW }).drain, 'of a pool no longer configured too').to.deep.equal([{ name: 'pvep-pool-small-1', reason: 'stuck' }]);
    const taken = member(1, { createdAt: '2026-12-03T07:29:00Z', drainingSince: '2026-12-03T07:59:00Z' });
    expect(decideRefill({ pool, fingerprint: 'fp1', members: [taken, idle(3)], now: NOW })).to.deep.equal({ create: 2, drain: [{ name: 'pvep-pool-small-1', reason: 'interrupted' }] });
  });

  it('drains an idle member whose record is not present with its uid (deleted or lost), and does not count it idle', () => {
    const members = [idle(1), idle(2, '2026-12-03T07:55:00Z', { unrecorded: true }), idle(3)];
    expect(decideRefill({ pool, fingerprint: 'fp1', members, now: NOW })).to.deep.equal({ create: 1, drain: [{ name: 'pvep-pool-small-2', reason: 'unrecorded' }] });
  });

  it('keeps nothing idle for minIdle 0 and maxIdle 0', () => {
    expect(decideRefill({ pool: { ...pool, minIdle: 0, maxIdle: 0 }, fingerprint: 'fp1', members: [idle(1)], now: NOW })).to.deep.equal({ create: 0, drain: [{ name: 'pvep-pool-small-1', reason: 'over-max' }] });
  });
});

describe('the refill target follows demand (SPEC 30, base stock)', () => {
  const at = (secondsAgo: number) => NOW.getTime() - secondsAgo * 1000;
  const wide = { ...pool, minIdle: 5, maxIdle: 15 };

  it('the lead time is the 90th percentile of the last ones, 120 s before any', () => {
    expect(leadTimeMs([])).to.equal(DEFAULT_LEAD_MS).and.to.equal(120_000);
    expect(leadTimeMs([64_000])).to.equal(64_000);
    const twenty = Array.from({ length: 20 }, (_, i) => (i + 1) * 1000);
    expect(leadTimeMs(twenty.reverse()), '18th of 20 sorted').to.equal(18_000);
  });

  it('is minIdle plus the claims tried within the lead time, at most maxIdle', () => {
    const demand = { leadTimesMs: [60_000], claimTimesMs: [at(5), at(30), at(59), at(61), at(600)] };
    expect(refillTarget(wide, demand, NOW), 'three within 60 s').to.equal(8);
    expect(refillTarget({ ...wide, maxIdle: 6 }, demand, NOW), 'bounded by maxIdle').to.equal(6);
    expect(refillTarget(wide, { leadTimesMs: [], claimTimesMs: [at(61), at(119)] }, NOW), 'the default lead time before one is measured').to.equal(7);
    expect(refillTarget(wide, undefined, NOW), 'no demand read: minIdle').to.equal(5);
    expect(refillTarget(wide, { leadTimesMs: [60_000], claimTimesMs: [] }, NOW), 'no claims: minIdle').to.equal(5);
  });

  it('creates up to the target, counting idle and creating members', () => {
    const demand = { leadTimesMs: [60_000], claimTimesMs: [at(1), at(2), at(3), at(4)] };
    const members = [idle(1), idle(2), member(3)];
    expect(decideRefill({ pool: wide, fingerprint: 'fp1', members, demand, now: NOW })).to.deep.equal({ create: 6, drain: [] });
    expect(decideRefill({ pool: wide, fingerprint: 'fp1', members, now: NOW }), 'without demand: up to minIdle').to.deep.equal({ create: 2, drain: [] });
  });

  it('does not drain idle members beyond minIdle when demand falls: they get claimed, or maxAgeMinutes replaces them', () => {
    const members = Array.from({ length: 10 }, (_, i) => idle(i + 1));
    expect(decideRefill({ pool: wide, fingerprint: 'fp1', members, demand: { leadTimesMs: [60_000], claimTimesMs: [] }, now: NOW })).to.deep.equal({ create: 0, drain: [] });
  });
});
