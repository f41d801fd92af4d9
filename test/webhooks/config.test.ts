// SPEC 27's configuration: webhooks.url is empty (off), http or https;
// a worker with webhooks.url set needs webhooks.secretFile to be there,
// and says so at start naming the key, creating no file.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { freePort } from '../support/free-port.js';
import { createHarness, type Harness } from '../support/harness.js';
import { REDIS_URL, uniquePrefix } from '../support/redis.js';

const repo = join(import.meta.dirname, '..', '..');
const tsx = pathToFileURL(join(repo, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

function configError(overrides: Record<string, unknown>): string {
  try {
    loadConfig({ env: {}, overrides });
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('webhooks configuration (SPEC 27)', () => {
  let h: Harness | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await h?.close();
    h = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('is off by default, and takes https:// and plain http:// to any host', () => {
    expect(loadConfig({ env: {} }).webhooks).to.deep.include({ url: '', attempts: 15, backoffMs: 1000, timeoutMs: 10000, concurrency: 4 });
    expect(loadConfig({ env: { WEBHOOKS_URL: 'https://backend.example/hooks' } }).webhooks.url).to.equal('https://backend.example/hooks');
    expect(loadConfig({ env: { WEBHOOKS_URL: ' http://backend:3000/hooks ' } }).webhooks.url).to.equal('http://backend:3000/hooks');
  });

  it('refuses a URL of another scheme or no URL at all, naming the key', () => {
    expect(configError({ webhooks: { url: 'ftp://backend/hooks' } })).to.match(/webhooks\.url: has scheme ftp:; allowed: empty/);
    expect(configError({ webhooks: { url: 'backend/hooks' } })).to.match(/webhooks\.url: is not a URL/);
    expect(configError({ webhooks: { attempts: 0 } })).to.match(/webhooks\.attempts/);
    expect(configError({ webhooks: { timeoutMs: -1 } })).to.match(/webhooks\.timeoutMs/);
  });

  it('a worker with webhooks.url and no secret file fails at start naming webhooks.secretFile, and creates none', async () => {
    dir = mkdtempSync(join(tmpdir(), 'pvep-webhook-config-'));
    const secretFile = join(dir, 'missing-secret');
    h = createHarness('wh-config', { config: { webhooks: { url: 'http://127.0.0.1:9/hooks', secretFile } } });
    let message = '';
    try {
      await h.startWorker();
    } catch (err) {
      expect(err).to.be.instanceOf(ConfigError);
      message = (err as Error).message;
    }
    expect(message).to.equal(`invalid configuration: webhooks.secretFile: cannot read secret file ${secretFile}: ENOENT (it is required while webhooks.url is set)`);
    expect(existsSync(secretFile)).to.equal(false);
  });

  for (const command of ['worker', 'all']) {
    it(`\`pve-provisioner ${command}\` with webhooks.url and no secret file exits 2, saying so on stderr`, async () => {
      dir = mkdtempSync(join(tmpdir(), 'pvep-webhook-cli-'));
      const secretFile = join(dir, 'missing-secret');
      const env = {
        ...process.env,
        PVE_PROVISIONER_CONFIG: '',
        REDIS_URL,
        REDIS_PREFIX: uniquePrefix('wh-cli'),
        HTTP_PORT: String(await freePort()),
        SIM_PORT: String(await freePort()),
        SIM_STATE_FILE: '',
        PROXMOX_TOKEN_FILE: join(dir, 'token'),
        WEBHOOKS_URL: 'http://127.0.0.1:9/hooks',
        WEBHOOKS_SECRET_FILE: secretFile,
        LOG_LEVEL: 'silent',
      };
      const run = await new Promise<{ code: number; stderr: string }>((resolve) => {
        execFile(process.execPath, ['--import', tsx, join(repo, 'src', 'cli.ts'), command], { cwd: dir, env, timeout: 30_000 }, (err, _stdout, stderr) =>
          resolve({ code: err ? Number(err.code ?? 1) : 0, stderr }),
        );
      });
      expect(run.stderr).to.equal(`pve-provisioner ${command}: invalid configuration: webhooks.secretFile: cannot read secret file ${secretFile}: ENOENT (it is required while webhooks.url is set)\n`);
      expect(run.code).to.equal(2);
      expect(existsSync(secretFile)).to.equal(false);
    });
  }
});
