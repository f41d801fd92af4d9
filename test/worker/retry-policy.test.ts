// The pure parts of SPEC 3 and 4: retry delays and how handler errors
// become BullMQ outcomes.
import { UnrecoverableError } from 'bullmq';
import { expect } from 'chai';
import { NotFoundError, PermanentError, TransientError } from '../../src/errors.js';
import { registerSecret } from '../../src/secrets/redact.js';
import { lockWaitDelayMs, retryDelayMs, toJobError } from '../../src/worker/retry.js';

describe('retry delays (SPEC 4)', () => {
  it('doubles each attempt, with a jitter that keeps every delay longer than the one before', () => {
    for (const base of [100, 2000]) {
      for (let attempt = 1; attempt < 8; attempt++) {
        const longestNow = retryDelayMs(attempt, base, () => 1);
        const shortestNext = retryDelayMs(attempt + 1, base, () => 0);
        expect(shortestNext).to.be.greaterThan(longestNow);
      }
    }
    expect(retryDelayMs(1, 1000, () => 1)).to.equal(1000);
    expect(retryDelayMs(3, 1000, () => 1)).to.equal(4000);
  });

  it('spreads retries of jobs that failed together', () => {
    const delays = new Set(Array.from({ length: 20 }, () => retryDelayMs(2, 1000)));
    expect(delays.size).to.be.greaterThan(1);
  });

  it('waits for a held lock a fraction of its TTL, never more than 3 s', () => {
    expect(lockWaitDelayMs(1000, () => 0)).to.equal(50);
    expect(lockWaitDelayMs(1000, () => 1)).to.equal(150);
    expect(lockWaitDelayMs(600_000, () => 1)).to.equal(3000);
  });
});

describe('errors at the job boundary (SPEC 4)', () => {
  it('turns Permanent into UnrecoverableError carrying the reason', () => {
    const err = toJobError(new PermanentError('403 Permission check failed', { reason: 'grant VM.Clone to the token' }));
    expect(err).to.be.instanceOf(UnrecoverableError);
    expect(err.message).to.include('grant VM.Clone to the token').and.to.include('403 Permission check failed');
  });

  it('keeps Transient and unclassified errors retryable', () => {
    for (const err of [new TransientError('VM is locked (clone)'), new Error('socket hang up'), new NotFoundError('gone')]) {
      expect(toJobError(err)).not.to.be.instanceOf(UnrecoverableError);
    }
  });

  it('redacts registered secrets from the reason', () => {
    registerSecret('sentinel-retry-0d7f3a');
    const err = toJobError(new TransientError('echoed token sentinel-retry-0d7f3a'));
    expect(err.message).not.to.include('sentinel-retry-0d7f3a');
  });
});
