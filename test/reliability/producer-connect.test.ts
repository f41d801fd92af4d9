// Regression (found by bench/memory.ts, SPEC 6 producer library): calls
// made together on a fresh producer connection failed with
// RedisUnavailableError although Redis was up: the first call connected,
// the others found the connection still connecting and sent a PING that a
// connection without an offline queue refuses at once.
import { expect } from 'chai';
import { connected, createProducerConnection } from '../../src/queue/connection.js';
import { REDIS_URL } from '../support/redis.js';

describe('a fresh producer connection serves calls made together (SPEC 6)', () => {
  it('ten concurrent first calls all get the connection', async () => {
    const redis = createProducerConnection(REDIS_URL);
    try {
      const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => connected(redis)));
      expect(outcomes.filter((o) => o.status === 'rejected').map((o) => String((o).reason))).to.deep.equal([]);
      expect(await redis.ping()).to.equal('PONG');
    } finally {
      redis.disconnect();
    }
  });

  it('still fails fast, naming the address, when Redis is not there', async () => {
    const redis = createProducerConnection('redis://127.0.0.1:1');
    try {
      const outcomes = await Promise.allSettled([connected(redis), connected(redis)]);
      for (const outcome of outcomes) {
        expect(outcome.status).to.equal('rejected');
        expect(String((outcome as PromiseRejectedResult).reason)).to.contain('127.0.0.1:1');
      }
    } finally {
      redis.disconnect();
    }
  });
});
