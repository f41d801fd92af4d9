// SPEC 24, 6, 27 (issue 25): the producer library's getJob and waitForJob
// answer an id of no shape the service gives without asking Redis, where
// such an id may name one of BullMQ's own keys.
import { expect } from 'chai';
import { createProvisionerClient } from '../../src/client.js';
import { REDIS_URL, deletePrefix, newRedis, uniquePrefix } from '../support/redis.js';
import { rejection } from '../support/rejection.js';

describe('producer getJob and waitForJob with an id of no shape of ours (SPEC 24, issue 25)', () => {
  const prefix = uniquePrefix('job-id-shapes');

  after(async () => {
    const redis = newRedis();
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it('getJob answers no job for a BullMQ key suffix, on a Redis where that key exists', async () => {
    const client = createProvisionerClient({ redisUrl: REDIS_URL, prefix });
    try {
      // A create makes the queue's own `id` counter and `events` stream.
      await client.createVm({ name: 'shapes-1' });
      for (const id of ['id', 'events', 'meta', 'metrics:completed:data']) expect(await client.getJob(id), id).to.equal(undefined);
    } finally {
      await client.close();
    }
  });

  it('getJob and waitForJob ask no Redis for it: answered with nothing listening', async () => {
    const down = createProvisionerClient({ redisUrl: 'redis://127.0.0.1:1', prefix });
    try {
      expect(await down.getJob('id')).to.equal(undefined);
      const err = await rejection(down.waitForJob('events', { timeoutMs: 60_000 }));
      expect(err.message).to.equal('job events does not exist');
      // An id of our shape is looked up, so Redis being away is said.
      expect((await rejection(down.getJob('check-shapes-1-4b3abb84-343c-4fc6-85d2-10c0854df185'))).name).to.equal('RedisUnavailableError');
    } finally {
      await down.close();
    }
  });
});
