// SPEC 34: the web process publishes each tenant's webhookUrl (from the
// tokens file) into the tenant-webhooks hash the workers read: at its
// start, exactly the configured URLs, a tenant no longer having one taken out.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { keys } from '../../src/redis-keys.js';
import { publishTenantWebhooks } from '../../src/tenants/webhook-publish.js';
import type { Tenant } from '../../src/tenants/types.js';
import { startWebServer } from '../../src/web/server.js';
import { deletePrefix, keyPrefix, newRedis, testConfig, uniquePrefix } from '../support/redis.js';

const tenant = (name: string, webhookUrl?: string): Tenant => ({ name, scope: 'write', quotas: {}, ...(webhookUrl === undefined ? {} : { webhookUrl }) });

describe("tenants' webhook URLs published (SPEC 34)", () => {
  let redis: Redis;
  let prefix: string;
  beforeEach(() => {
    redis = newRedis();
    prefix = uniquePrefix('tenant-hooks');
  });
  afterEach(async () => {
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  const published = (): Promise<Record<string, string>> => redis.hgetall(keys.tenantWebhooks(keyPrefix(prefix)));

  it('writes each URL and takes out a tenant that has none now, or is gone from the file', async () => {
    await publishTenantWebhooks(redis, keyPrefix(prefix), [tenant('acme', 'https://acme.example/1'), tenant('beta', 'https://beta.example/h'), tenant('gamma', 'https://gamma.example/h')]);
    expect(await published()).to.deep.equal({ acme: 'https://acme.example/1', beta: 'https://beta.example/h', gamma: 'https://gamma.example/h' });
    await publishTenantWebhooks(redis, keyPrefix(prefix), [tenant('acme', 'https://acme.example/2'), tenant('beta'), tenant('delta', 'https://delta.example/h')]);
    expect(await published()).to.deep.equal({ acme: 'https://acme.example/2', delta: 'https://delta.example/h' });
    await publishTenantWebhooks(redis, keyPrefix(prefix), [tenant('default')]);
    expect(await published()).to.deep.equal({});
  });

  it('the web process publishes them from its tokens file at start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pvep-tenant-hooks-'));
    try {
      const tokens = join(dir, 'api-tokens');
      const line = (name: string, rest: string): string => `${name}-${randomBytes(16).toString('hex')} tenant=${name}${rest}\n`;
      writeFileSync(tokens, line('acme', ' webhookUrl=https://acme.example/hooks') + line('beta', '') + line('acme', ' scope=read'), { mode: 0o600 });
      // Left by an earlier start whose file gave beta a URL.
      await redis.hset(keys.tenantWebhooks(keyPrefix(prefix)), 'beta', 'https://beta.example/old');
      const config = testConfig(prefix, { http: { apiTokensFile: tokens, boardUsersFile: join(dir, 'board-users'), fingerprintKeyFile: join(dir, 'fingerprint-key') } });
      const server = await startWebServer(config, createLogger({ level: 'silent', pretty: false }), { metrics: createMetrics(), port: 0 });
      try {
        expect(await published()).to.deep.equal({ acme: 'https://acme.example/hooks' });
      } finally {
        await server.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
