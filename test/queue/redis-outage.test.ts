// SPEC 24: a Redis outage is said once in words, then at most once per
// retry interval, then once when it ends; an error that is not a lost
// connection is not taken for one. The address never carries the password.
import { expect } from 'chai';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/log.js';
import { REDIS_RETRY_MAX_MS, redisRetryDelayMs } from '../../src/queue/redis-backoff.js';
import { redisAddressOf, unreachableReason } from '../../src/queue/redis-failure.js';
import { RedisOutageReporter } from '../../src/queue/redis-outage.js';

function refused(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6399'), { code: 'ECONNREFUSED' });
}

function reporterWithLines(): { reporter: RedisOutageReporter; lines: { level: number; msg: string }[]; clock: { now: number } } {
  const lines: { level: number; msg: string }[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as { level: number; msg: string });
      done();
    },
  });
  const clock = { now: 1_000_000 };
  const reporter = new RedisOutageReporter('127.0.0.1:6399', createLogger({ level: 'info', pretty: false, destination }), () => clock.now);
  return { reporter, lines, clock };
}

describe('Redis outage reporting (SPEC 24)', () => {
  it('says the outage once, naming the address, the reason and what to check', () => {
    const { reporter, lines } = reporterWithLines();
    for (let i = 0; i < 50; i += 1) reporter.failed(refused());
    expect(lines).to.have.length(1);
    expect(lines[0]?.msg).to.equal(
      'Redis at 127.0.0.1:6399 is not reachable (connection refused): check that redis-server runs there and that redis.url (REDIS_URL) names it; retrying with backoff (up to every 10 s)',
    );
    expect(reporter.current()?.reason).to.equal('connection refused');
  });

  it('logs one warn line per retry interval, however many connections retry', () => {
    const { reporter, lines, clock } = reporterWithLines();
    reporter.failed(refused());
    // Five connections retry on the same schedule: 1 s, 2 s, 4 s, 8 s, 10 s, 10 s.
    let at = clock.now;
    for (const delay of [1000, 2000, 4000, 8000, 10_000, 10_000]) {
      at += delay;
      clock.now = at;
      for (let c = 0; c < 5; c += 1) reporter.retrying(delay);
    }
    const warns = lines.filter((l) => l.level === 40);
    expect(warns).to.have.length(6);
    expect(warns[0]?.msg).to.match(/^Redis at 127\.0\.0\.1:6399 still not reachable \(connection refused\) after 1 s; next try in 1 s$/);
  });

  it('says once that Redis is back, and a new outage is said again', () => {
    const { reporter, lines, clock } = reporterWithLines();
    reporter.failed(refused());
    clock.now += 7_000;
    reporter.recovered();
    reporter.recovered();
    expect(reporter.current()).to.equal(undefined);
    expect(lines.map((l) => l.msg)).to.have.length(2);
    expect(lines[1]?.msg).to.equal('Redis at 127.0.0.1:6399 is reachable again (after 7 s)');
    reporter.failed(refused());
    expect(lines).to.have.length(3);
  });

  it('does not take an error that is not a lost connection for an outage', () => {
    const { reporter, lines } = reporterWithLines();
    expect(reporter.failed(new Error('ERR value is not an integer or out of range'))).to.equal(false);
    expect(reporter.current()).to.equal(undefined);
    reporter.error(new Error('ERR value is not an integer or out of range'), 'queue vm');
    expect(lines).to.have.length(1);
    expect(lines[0]?.msg).to.equal('queue vm error: ERR value is not an integer or out of range');
  });

  it('Retry-After follows the retry interval, from 1 to 10 s', () => {
    const { reporter } = reporterWithLines();
    expect(reporter.retryAfterSeconds()).to.equal(1);
    reporter.failed(refused());
    reporter.retrying(4_100);
    expect(reporter.retryAfterSeconds()).to.equal(5);
    reporter.retrying(60_000);
    expect(reporter.retryAfterSeconds()).to.equal(10);
  });

  const reasons: [string, Error, string | undefined][] = [
    ['refused', refused(), 'connection refused'],
    ['a timeout', Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' }), 'connection timed out'],
    ['an unknown host', Object.assign(new Error('getaddrinfo ENOTFOUND redis.example'), { code: 'ENOTFOUND' }), 'host name not found'],
    ['a closed connection', new Error('Connection is closed.'), 'connection closed'],
    ['no offline queue', new Error("Stream isn't writeable and enableOfflineQueue options is false"), 'not connected'],
    ['a wrong password', new Error('WRONGPASS invalid username-password pair or user is disabled.'), 'authentication refused: check the password in redis.url or redis.passwordFile'],
    ['a Lua error', new Error('ERR Error running script'), undefined],
  ];
  for (const [what, err, reason] of reasons) {
    it(`names ${what} as ${reason ?? 'no outage'}`, () => {
      expect(unreachableReason(err)).to.equal(reason);
    });
  }

  it('names the address without the password of the URL', () => {
    expect(redisAddressOf('redis://:s3cret-pass@redis.internal:6380/2')).to.equal('redis.internal:6380');
    expect(redisAddressOf('rediss://user:pw@[::1]')).to.equal('[::1]:6379');
  });

  it('backs off from 1 s, doubling, to at most 10 s with jitter', () => {
    const middle = (): number => 0.5;
    expect([1, 2, 3, 4, 5, 20].map((n) => redisRetryDelayMs(n, middle))).to.deep.equal([1000, 2000, 4000, 8000, 10_000, 10_000]);
    expect(redisRetryDelayMs(9, () => 0.999)).to.be.at.most(REDIS_RETRY_MAX_MS * 1.1);
  });
});
