// A worker connection's commands of one turn of the event loop go to
// Redis in one socket write (SPEC 21), answered each on its own and in
// the order sent; later turns, and a connection made again, still send.
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { createWorkerConnection } from '../../src/queue/connection.js';
import { REDIS_URL, deletePrefix, uniquePrefix } from '../support/redis.js';

interface CountedSocket {
  _write(...args: unknown[]): unknown;
  _writev(...args: unknown[]): unknown;
}

/** Counts the socket writes of the connection's current stream. */
function countWrites(redis: Redis): { writes: number } {
  const counted = { writes: 0 };
  const socket = redis.stream as unknown as CountedSocket;
  for (const method of ['_write', '_writev'] as const) {
    const original = socket[method].bind(socket);
    socket[method] = (...args: unknown[]) => {
      counted.writes += 1;
      return original(...args);
    };
  }
  return counted;
}

describe('one socket write per turn on a worker connection (SPEC 21)', function () {
  const prefix = uniquePrefix('coalesce');
  let redis: Redis;

  beforeEach(async () => {
    redis = createWorkerConnection(REDIS_URL) as Redis;
    await redis.ping();
  });

  afterEach(async () => {
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it('sends the commands of one turn in one write, each answered as if sent alone, in order', async () => {
    const counted = countWrites(redis);
    const answers = await Promise.all([
      redis.set(`${prefix}:a`, '1'),
      redis.incr(`${prefix}:a`),
      redis.incr(`${prefix}:a`),
      redis.get(`${prefix}:a`),
      redis.hget(`${prefix}:a`, 'x').catch((err: unknown) => (err as Error).message.split(' ')[0]),
      redis.get(`${prefix}:missing`),
    ]);
    expect(answers).to.deep.equal(['OK', 2, 3, '3', 'WRONGTYPE', null]);
    expect(counted.writes).to.equal(1);
  });

  it('commands of later turns are sent too, one write each', async () => {
    const counted = countWrites(redis);
    expect(await redis.set(`${prefix}:b`, 'first')).to.equal('OK');
    await new Promise((resolve) => setImmediate(resolve));
    expect(await redis.get(`${prefix}:b`)).to.equal('first');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await redis.incr(`${prefix}:c`)).to.equal(1);
    expect(counted.writes).to.equal(3);
  });

  it('a connection made again sends and is answered as before', async () => {
    await redis.set(`${prefix}:d`, 'kept');
    redis.disconnect(true);
    expect(await redis.get(`${prefix}:d`)).to.equal('kept');
    const counted = countWrites(redis);
    expect(await Promise.all([redis.incr(`${prefix}:e`), redis.incr(`${prefix}:e`)])).to.deep.equal([1, 2]);
    expect(counted.writes).to.equal(1);
  });
});
