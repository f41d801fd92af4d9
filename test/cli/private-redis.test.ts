// SPEC 24: `npm start` (all --private-redis) on the default redis.url
// with nothing answering starts a private redis-server there, AOF on,
// data in its directory, stopped with the service; with no redis-server
// installed it names the one command that installs it; a redis.url the
// user set is never replaced.
import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { DEFAULT_REDIS_URL, redisUrlSetByUser, startPrivateRedisIfNeeded } from '../../src/cli/private-redis.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { redisAnswers } from '../e2e/redis-server.js';
import { freePort } from '../support/free-port.js';
import { REDIS_URL } from '../support/redis.js';

function answersWithin(url: string, ms: number): Promise<boolean> {
  return redisAnswers(url, ms).then(
    () => true,
    () => false,
  );
}

describe('a private Redis for npm start (SPEC 24)', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pvep-private-redis-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('starts redis-server on the URL when nothing answers there, AOF on, data in its directory, and stops it on close', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const started = await startPrivateRedisIfNeeded({ url, setByUser: false, dir: join(dir, 'redis'), logger: silentLogger() });
    expect(started.kind).to.equal('private');
    const redis = new Redis(url);
    try {
      expect(await redis.config('GET', 'appendonly')).to.deep.equal(['appendonly', 'yes']);
      expect(await redis.config('GET', 'dir')).to.deep.equal(['dir', join(dir, 'redis')]);
      await redis.set('kept', '1');
    } finally {
      redis.disconnect();
    }
    if (started.kind === 'private') await started.close();
    expect(await answersWithin(url, 300)).to.equal(false);
    expect(readdirSync(join(dir, 'redis'))).to.include('redis.log');
    expect(existsSync(join(dir, 'redis', 'appendonlydir'))).to.equal(true);
  });

  it('never replaces a redis.url the user set, even when nothing answers there', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const started = await startPrivateRedisIfNeeded({ url, setByUser: true, dir: join(dir, 'redis'), logger: silentLogger() });
    expect(started.kind).to.equal('configured');
    expect(await answersWithin(url, 300)).to.equal(false);
    expect(existsSync(join(dir, 'redis'))).to.equal(false);
  });

  it('uses the Redis that answers', async () => {
    const started = await startPrivateRedisIfNeeded({ url: REDIS_URL, setByUser: false, dir: join(dir, 'redis'), logger: silentLogger() });
    expect(started.kind).to.equal('configured');
    expect(existsSync(join(dir, 'redis'))).to.equal(false);
  });

  it('names the command that installs redis-server when it is not installed', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const started = await startPrivateRedisIfNeeded({ url, setByUser: false, dir: join(dir, 'redis'), path: join(dir, 'empty-bin'), logger: silentLogger() });
    expect(started).to.deep.equal({
      kind: 'missing',
      message: `nothing answers on redis.url ${url} and redis-server is not installed; install it with: sudo apt-get install redis-server (or set REDIS_URL to a Redis of yours)`,
    });
  });

  it('counts REDIS_URL and a config file with redis.url as set by the user, nothing else', () => {
    const withUrl = join(dir, 'with-url.json');
    const without = join(dir, 'without.json');
    writeFileSync(withUrl, JSON.stringify({ redis: { url: 'redis://10.0.0.5:6379' } }));
    writeFileSync(without, JSON.stringify({ redis: { prefix: 'x' }, http: { port: 9000 } }));
    expect(redisUrlSetByUser({})).to.equal(false);
    expect(redisUrlSetByUser({ REDIS_URL: 'redis://127.0.0.1:6379' })).to.equal(true);
    expect(redisUrlSetByUser({ PVE_PROVISIONER_CONFIG: withUrl })).to.equal(true);
    expect(redisUrlSetByUser({ PVE_PROVISIONER_CONFIG: without })).to.equal(false);
  });

  it('counts a redis.url other than the default as set by the user, wherever it came from (an edited config/default.json)', () => {
    const env = { PATH: process.env.PATH };
    expect(loadConfig({ env }).redis.url).to.equal(DEFAULT_REDIS_URL);
    expect(redisUrlSetByUser(env, loadConfig({ env }).redis.url)).to.equal(false);
    expect(redisUrlSetByUser(env, 'redis://127.0.0.1:6380')).to.equal(true);
    expect(redisUrlSetByUser(env, 'redis://:secret@127.0.0.1:6379')).to.equal(true);
  });
});
