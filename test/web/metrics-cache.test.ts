// SPEC 9, 24: the Redis figures of /metrics are shared for a while, but a
// failed read is never what later scrapes get: the next one reads again.
import { expect } from 'chai';
import { sharedFor } from '../../src/web/metrics-cache.js';

describe('sharedFor: one read shared for a while (SPEC 9, 24)', () => {
  it('shares an answer within the interval, and a failed read is read again at the next call', async () => {
    let reads = 0;
    let failing = true;
    const figures = sharedFor(60_000, () => {
      reads += 1;
      return failing ? Promise.reject(new Error('Redis is not reachable')) : Promise.resolve(`figures ${reads}`);
    });
    let failed: unknown;
    await figures().catch((err: unknown) => (failed = err));
    expect(failed).to.be.instanceOf(Error);
    failing = false;
    expect(await figures()).to.equal('figures 2');
    expect(await figures()).to.equal('figures 2');
    expect(reads).to.equal(2);
  });
});
