// SPEC 6 over a real socket: startWebServer listens, creates the missing
// credentials and fingerprint key files on the simulator defaults, logs
// where the API and Bull Board are and which files hold the credentials
// (never the values), and serves the API, the board and the probes over
// HTTP.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { startWebServer, type WebServer } from '../../src/web/server.js';
import { basicHeader } from './helpers.js';
import { testPool } from '../support/address-leases.js';
import { parseSamples, valueOf } from '../support/prometheus-scrape.js';
import { deletePrefix, REDIS_URL, uniquePrefix } from '../support/redis.js';

describe('web server on a real socket (SPEC 6)', () => {
  let dir: string;
  let prefix: string;
  let server: WebServer;
  const lines: string[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pvep-server-'));
    prefix = uniquePrefix('server');
    const config = loadConfig({
      env: {},
      overrides: {
        redis: { url: REDIS_URL, prefix },
        // On a bridge no node has: no create here takes an address from it.
        proxmox: { networks: [testPool({ bridge: 'vmbr-unused' })] },
        http: { apiTokensFile: join(dir, 'api-tokens'), boardUsersFile: join(dir, 'board-users'), fingerprintKeyFile: join(dir, 'fingerprint-key') },
      },
    });
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    server = await startWebServer(config, createLogger({ level: 'info', pretty: false, destination }), { metrics: createMetrics(), port: 0 });
  });

  after(async () => {
    await server.close();
    const redis = new Redis(REDIS_URL);
    await deletePrefix(redis, prefix);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  const token = (): string => readFileSync(join(dir, 'api-tokens'), 'utf8').trim();
  const boardLogin = (): [string, string] => {
    const [user = '', password = ''] = readFileSync(join(dir, 'board-users'), 'utf8').trim().split(':');
    return [user, password];
  };

  it('logs the API and Bull Board URLs and the credentials files, never their values', () => {
    const log = lines.join('');
    expect(log).to.contain(`${server.url}/v1`).and.to.contain(`${server.url}/admin/queues`);
    expect(log).to.contain(join(dir, 'api-tokens')).and.to.contain(join(dir, 'board-users')).and.to.contain(join(dir, 'fingerprint-key'));
    expect(log).to.not.contain(token());
    expect(log).to.not.contain(boardLogin()[1]);
    expect(log).to.not.contain(readFileSync(join(dir, 'fingerprint-key'), 'utf8').trim());
  });

  it('serves /healthz, and refuses /v1 without the token', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).to.equal(200);
    const refused = await fetch(`${server.url}/v1/vms`);
    expect(refused.status).to.equal(401);
  });

  it('enqueues a create with the token from the created file and answers its job', async () => {
    const headers = { authorization: `Bearer ${token()}`, 'content-type': 'application/json' };
    const created = await fetch(`${server.url}/v1/vms`, { method: 'POST', headers, body: JSON.stringify({ name: 'web-socket' }) });
    expect(created.status).to.equal(202);
    const { jobId } = (await created.json()) as { jobId: string };
    const location = created.headers.get('location') ?? '';
    const job = await fetch(`${server.url}${location}`, { headers });
    expect(job.status).to.equal(200);
    expect(await job.json()).to.include({ id: jobId, job: 'create' });
  });

  it('serves Bull Board with the created user and password', async () => {
    const [user, password] = boardLogin();
    expect((await fetch(`${server.url}/admin/queues`)).status).to.equal(401);
    const page = await fetch(`${server.url}/admin/queues`, { headers: { authorization: basicHeader(user, password) } });
    expect(page.status).to.equal(200);
    expect(await page.text()).to.contain('<div id="root">');
  });

  it('serves the configured address pools\' figures on /metrics, read from Redis (SPEC 29)', async () => {
    const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token()}` } })).text();
    expect(valueOf(parseSamples(text), 'pvep_address_pool_addresses', { pool: 'lab', state: 'free' })).to.equal(253);
  });

  it("Bull Board lists the VM and system queues and the webhook deliveries' own (SPEC 27)", async () => {
    const [user, password] = boardLogin();
    const listed = await fetch(`${server.url}/admin/queues/api/queues`, { headers: { authorization: basicHeader(user, password) } });
    expect(listed.status).to.equal(200);
    const { queues } = (await listed.json()) as { queues: { name: string }[] };
    expect(queues.map((q) => q.name).sort()).to.deep.equal(['system', 'vm', 'webhooks']);
  });
});
