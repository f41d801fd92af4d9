// SPEC 22: a registered secret never reaches Redis: not in a job's data,
// result, progress, log or failure. Everything stored under the prefix
// is read back and searched.
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { PermanentError, TransientError } from '../../src/errors.js';
import { REDACTED, registerSecret } from '../../src/secrets/redact.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';
import { scanKeys } from '../support/redis.js';

const SENTINEL = 'sentinel-token-7c41e9b2d0';

async function everythingStored(redis: Redis, prefix: string): Promise<string> {
  const parts: string[] = [];
  for (const key of await scanKeys(redis, prefix)) {
    const type = await redis.type(key);
    if (type === 'string') parts.push((await redis.get(key)) ?? '');
    else if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
    else if (type === 'list') parts.push(...(await redis.lrange(key, 0, -1)));
    else if (type === 'set') parts.push(...(await redis.smembers(key)));
    else if (type === 'zset') parts.push(...(await redis.zrange(key, 0, -1)));
    else if (type === 'stream') parts.push(JSON.stringify(await redis.xrange(key, '-', '+')));
    else throw new Error(`key ${key} of unexpected type ${type}`);
  }
  return parts.join('\n');
}

describe('no secret in Redis (SPEC 22)', function () {
  let h: Harness;

  afterEach(async () => {
    await h.close();
  });

  it('redacts a registered secret from job logs, failures and retries', async () => {
    registerSecret(`root@pam!ci=${SENTINEL}`);
    h = createHarness('secrets', {
      config: { jobs: { attempts: 2, backoffMs: 20 } },
      provider: {
        logLines: [`task log echoed PVEAPIToken=root@pam!ci=${SENTINEL}`, `raw ${SENTINEL}`],
        address: `echo ${SENTINEL}`,
        createFailures: [
          new TransientError(`500 echoed ${SENTINEL}`),
          new PermanentError(`401 authentication failure for ${SENTINEL}`, { reason: `the token ${SENTINEL} was rejected` }),
        ],
      },
    });
    const a = await h.client.createVm({ name: 'sec-1', uid: 'u1' });
    const b = await h.client.createVm({ name: 'sec-2', uid: 'u2' });
    await h.startWorker();
    const views = await Promise.all([a, b].map((r) => h.client.waitForJob(r.jobId, { timeoutMs: 10_000 })));
    expect(views.map((v) => v.state).sort()).to.deep.equal(['completed', 'failed']);

    const stored = await everythingStored(h.redis, h.prefix);
    expect(stored).to.include(REDACTED, 'the secret-bearing lines and failures were stored, redacted');
    expect(stored).to.include('step: cloned');
    expect(views.find((v) => v.state === 'completed')?.result).to.deep.include({ address: `echo ${REDACTED}` });
    expect(stored).not.to.include(SENTINEL);
  });
});
