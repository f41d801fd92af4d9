// SPEC 24 and 25 at the door: the producer library on a Redis Cluster or
// behind sentinels that do not answer is told at once, in one line that
// names them and the keys to check; a password from redis.passwordFile
// opens a Redis that requires one, and a wrong one is named as such
// without the password in the text.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connected, createProducerConnection, RedisUnavailableError } from '../../src/queue/connection.js';
import { redisAnswers } from '../e2e/redis-server.js';
import { freePort } from '../support/free-port.js';

async function refusal(target: Parameters<typeof createProducerConnection>[0]): Promise<Error> {
  const redis = createProducerConnection(target);
  try {
    await connected(redis);
  } catch (err) {
    return err as Error;
  } finally {
    redis.disconnect();
  }
  throw new Error('expected the connection to be refused');
}

describe('the producer on a Cluster, behind Sentinel, with a password file (SPEC 24, 25)', function () {
  this.timeout(30_000);

  it('names the cluster nodes and redis.clusterNodes when none answers', async () => {
    const nodes = [`127.0.0.1:${await freePort()}`, `127.0.0.1:${await freePort()}`];
    const err = await refusal({ url: 'redis://127.0.0.1:6379', clusterNodes: nodes });
    expect(err).to.be.instanceOf(RedisUnavailableError);
    expect(err.message).to.equal(
      `Redis at cluster ${nodes.join(',')} is not reachable (no cluster node answers): check that the cluster nodes run, that every slot has a master, and that redis.clusterNodes (REDIS_CLUSTER_NODES) names some of them`,
    );
  });

  it('names the master, its sentinels and redis.sentinel.* when no sentinel answers', async () => {
    const sentinel = `127.0.0.1:${await freePort()}`;
    const started = Date.now();
    const err = await refusal({ url: 'redis://127.0.0.1:6379', sentinel: { nodes: [sentinel], name: 'pvep-master' } });
    expect(err).to.be.instanceOf(RedisUnavailableError);
    expect(err.message).to.match(new RegExp(`^Redis at master "pvep-master" of sentinels ${sentinel} is not reachable \\(no sentinel answers\\): check that the sentinels run .*redis\\.sentinel\\.nodes \\(REDIS_SENTINEL_NODES\\) and redis\\.sentinel\\.name \\(REDIS_SENTINEL_NAME\\)`));
    expect(Date.now() - started, 'told within the first connect, not left waiting').to.be.below(10_000);
  });

  it('reads the password from redis.passwordFile, and names a wrong one without showing it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pvep-redis-password-'));
    const port = await freePort();
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--requirepass', 'right-horse-battery'], { stdio: 'ignore' });
    try {
      const url = `redis://127.0.0.1:${port}`;
      await redisAnswers(`redis://:right-horse-battery@127.0.0.1:${port}`, 10_000);
      writeFileSync(join(dir, 'right'), 'right-horse-battery\n');
      writeFileSync(join(dir, 'wrong'), 'wrong-staple-1234\n');
      const good = createProducerConnection({ url, passwordFile: join(dir, 'right') });
      try {
        expect(await (await connected(good)).ping()).to.equal('PONG');
      } finally {
        good.disconnect();
      }
      const err = await refusal({ url, passwordFile: join(dir, 'wrong') });
      expect(err.message).to.include('authentication refused: check the password in redis.url or redis.passwordFile');
      expect(err.message).to.not.include('wrong-staple-1234');
      expect(() => createProducerConnection({ url, passwordFile: join(dir, 'missing') })).to.throw(/^redis\.passwordFile \(REDIS_PASSWORD_FILE\): cannot read secret file .*missing: ENOENT$/);
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
