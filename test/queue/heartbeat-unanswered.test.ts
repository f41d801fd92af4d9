// SPEC 24 for a Redis that is connected but does not answer (a Cluster
// slot whose master is gone for good, issue 16): the worker's heartbeat
// sends one beat at a time, and one left unanswered is said as an outage
// of the connection's address, once, then once when it is answered. A
// redis-server of the test's own: CLIENT PAUSE must not stall the shared one.
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createWorkerConnection, unansweredBeatReporter } from '../../src/queue/connection.js';
import { startHeartbeat } from '../../src/queue/heartbeat.js';
import { redisOutageReporter } from '../../src/queue/redis-outage.js';
import { startOwnRedis, type OwnRedis } from '../e2e/redis-server.js';
import { captureLogger } from '../support/capture-logger.js';
import { eventually, uniquePrefix } from '../support/redis.js';

const BEAT_MS = 100;

async function scriptCalls(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  return [...stats.matchAll(/cmdstat_eval(?:sha)?:calls=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
}

describe('a heartbeat Redis does not answer (SPEC 24, issue 16)', function () {
  this.timeout(30_000);
  let own: OwnRedis | undefined;
  let direct: Redis | undefined;

  before(async () => {
    own = await startOwnRedis();
    direct = new Redis(own.url);
  });

  after(async () => {
    direct?.disconnect();
    await own?.close();
  });

  it('sends no second beat while one waits, and says so once, then once when answered', async () => {
    const redis = createWorkerConnection(own!.url);
    const { logger, records } = captureLogger();
    redisOutageReporter(`127.0.0.1:${own!.port}`).setLogger(logger);
    const told: string[] = [];
    const watch = unansweredBeatReporter(redis);
    const beat = startHeartbeat(redis, uniquePrefix('beat-unanswered'), 'w-1', 1, BEAT_MS, {
      unanswered: (everyMs) => (told.push('unanswered'), watch.unanswered(everyMs)),
      answered: () => (told.push('answered'), watch.answered()),
    });
    await beat.first;
    await direct!.config('RESETSTAT');
    // Connected, no answer: the beat's script waits out the pause.
    await direct!.client('PAUSE', 20 * BEAT_MS, 'WRITE');
    await eventually(() => Promise.resolve(told.includes('answered') ? true : undefined));
    await beat.stop();
    redis.disconnect();
    expect(await scriptCalls(direct!), 'beats sent during the pause').to.be.at.most(2);
    expect(told.filter((t) => t === 'unanswered').length).to.be.greaterThan(1);
    const lines = records.map((r) => r.msg as string);
    expect(lines.filter((l) => l.includes('is not reachable (no answer to the heartbeat'))).to.have.length(1);
    expect(lines.filter((l) => l.includes('is reachable again'))).to.have.length(1);
  });

  it('leaves an outage its connection reports alone', () => {
    const redis = createWorkerConnection(own!.url);
    const { logger, records } = captureLogger();
    const reporter = redisOutageReporter(`127.0.0.1:${own!.port}`);
    reporter.setLogger(logger);
    reporter.failed(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const watch = unansweredBeatReporter(redis);
    watch.unanswered(BEAT_MS);
    watch.answered();
    expect(reporter.current()?.reason).to.equal('connection refused');
    reporter.recovered();
    redis.disconnect();
    expect(records.map((r) => r.msg as string).filter((l) => l.includes('heartbeat'))).to.deep.equal([]);
  });
});
