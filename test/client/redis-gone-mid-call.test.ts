// SPEC 24: a producer call whose Redis goes away is a RedisUnavailableError
// naming the address, also when Redis goes between the call's connection
// check and its commands. ioredis then refuses the command itself ("Stream
// isn't writeable ...") while it still counts the connection as ready: on
// a loaded machine that is the usual way a stopped Redis shows first.
import { expect } from 'chai';
import { Redis } from 'ioredis';
import sinon from 'sinon';
import { RedisUnavailableError, ValidationError, createProvisionerClient } from '../../src/client.js';
import { REDIS_URL, deletePrefix, newRedis, uniquePrefix } from '../support/redis.js';

const NOT_WRITEABLE = "Stream isn't writeable and enableOfflineQueue options is false";

async function refusal(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => undefined,
    (err: unknown) => err,
  );
}

describe('a producer call when Redis goes mid-call (SPEC 24)', () => {
  const prefix = uniquePrefix('gone-mid-call');
  afterEach(() => sinon.restore());
  after(async () => {
    const redis = newRedis();
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  type Producer = ReturnType<typeof createProvisionerClient>;
  // Every call of the client (unavailableAsOne wraps each); `jobId` is the create's made before Redis goes.
  for (const [call, run] of [
    ['createVm', (c: Producer) => c.createVm({ name: 'mid-2' })],
    ['deleteVm', (c: Producer) => c.deleteVm({ name: 'mid-1' })],
    ['checkVm', (c: Producer) => c.checkVm({ name: 'mid-1' })],
    ['enqueueJob', (c: Producer) => c.enqueueJob('check', { name: 'mid-1' })],
    ['getJob', (c: Producer, jobId: string) => c.getJob(jobId)],
    ['waitForJob', (c: Producer, jobId: string) => c.waitForJob(jobId, { timeoutMs: 60_000 })],
    ['getVm', (c: Producer) => c.getVm('mid-1')],
    ['listVms', (c: Producer) => c.listVms({})],
  ] as const) {
    it(`${call}: a RedisUnavailableError naming the address, not ioredis's refusal`, async () => {
      const producer = createProvisionerClient({ redisUrl: REDIS_URL, prefix });
      try {
        const { jobId } = await producer.createVm({ name: 'mid-1' });
        sinon.stub(Redis.prototype, 'sendCommand').callsFake((command) => {
          const refused = Promise.reject(new Error(NOT_WRITEABLE));
          command.reject(new Error(NOT_WRITEABLE));
          return refused;
        });
        const err = await refusal(run(producer, jobId));
        expect(err).to.be.instanceOf(RedisUnavailableError);
        expect((err as Error).message).to.match(/^Redis at \S+ is not reachable \(not connected\): /);
      } finally {
        sinon.restore();
        await producer.close();
      }
    });
  }

  it('leaves any other error as it is: bad input is still a ValidationError', async () => {
    const producer = createProvisionerClient({ redisUrl: REDIS_URL, prefix });
    try {
      expect(await refusal(producer.createVm({ name: 'Not A Label' }))).to.be.instanceOf(ValidationError);
    } finally {
      await producer.close();
    }
  });
});
