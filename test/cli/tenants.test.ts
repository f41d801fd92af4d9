// SPEC 34: `pve-provisioner tenants`: what each tenant holds against its
// quotas, as a table or --json, read from Redis; `--webhook-key TENANT`
// prints the key that tenant's webhooks are signed with.
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tenantsTable } from '../../src/cli/tenants.js';
import { keys } from '../../src/redis-keys.js';
import { REDIS_URL, deletePrefix, keyPrefix, newRedis, uniquePrefix } from '../support/redis.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsx = pathToFileURL(join(repo, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const SECRET = 'whsec-4b1e9d2c77a04f3e8d6c5b4a39281706';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', tsx, join(repo, 'src', 'cli.ts'), 'tenants', ...args],
      { cwd, env: { ...process.env, REDIS_URL, PVE_PROVISIONER_CONFIG: '', LOG_LEVEL: 'warn', ...env }, timeout: 50_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('pve-provisioner tenants (SPEC 34)', function () {
  this.timeout(120_000);
  let cwd: string;

  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'pvep-cli-tenants-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it('shows each tenant with held/quota per quota, held alone without one, and its creates per minute', () => {
    const text = tenantsTable([
      { tenant: 'alpha', quotas: { vms: 5, cores: 16, createsPerMinute: 10 }, usage: { vms: 2, cores: 4, memoryMiB: 4096, diskGiB: 40 } },
      { tenant: 'beta', quotas: {}, usage: { vms: 0, cores: 0, memoryMiB: 0, diskGiB: 0 } },
    ]);
    const [header, alpha, beta] = text.trimEnd().split('\n').map((line) => line.split(/ {2,}/));
    expect(header).to.deep.equal(['TENANT', 'VMS', 'CORES', 'MEMORY MIB', 'DISK GIB', 'CREATES/MIN']);
    expect(alpha).to.deep.equal(['alpha', '2/5', '4/16', '4096', '40', '10']);
    expect(beta).to.deep.equal(['beta', '0', '0', '0', '0', '-']);
  });

  it('reads what the tenants hold from Redis: --json answers as GET /v1/tenants, the table by name', async () => {
    const prefix = uniquePrefix('cli-tenants');
    const redis = newRedis();
    try {
      await redis.hset(keys.tenantUse(keyPrefix(prefix)), 'beta vms', 1, 'beta cores', 2, 'alpha vms', 3, 'alpha diskGiB', 30);
      const json = await cli(['--json'], cwd, { REDIS_PREFIX: prefix });
      expect(json.code, json.stderr).to.equal(0);
      expect(JSON.parse(json.stdout)).to.deep.equal({
        tenants: [
          { tenant: 'alpha', quotas: {}, usage: { vms: 3, cores: 0, memoryMiB: 0, diskGiB: 30 } },
          { tenant: 'beta', quotas: {}, usage: { vms: 1, cores: 2, memoryMiB: 0, diskGiB: 0 } },
        ],
      });
      const plain = await cli([], cwd, { REDIS_PREFIX: prefix });
      expect(plain.code, plain.stderr).to.equal(0);
      expect(plain.stdout.trimEnd().split('\n').map((line) => line.split(/ {2,}/)[0])).to.deep.equal(['TENANT', 'alpha', 'beta']);
    } finally {
      await deletePrefix(redis, keyPrefix(prefix));
      redis.disconnect();
    }
  });

  it("--webhook-key prints the tenant's key from webhooks.secretFile; a bad tenant name or a missing file is exit 2 naming it", async () => {
    const secretFile = join(cwd, 'webhook-secret');
    writeFileSync(secretFile, `${SECRET}\n`, { mode: 0o600 });
    const config = join(cwd, 'config.json');
    writeFileSync(config, JSON.stringify({ webhooks: { secretFile } }));
    const printed = await cli(['--webhook-key', 'alpha'], cwd, { PVE_PROVISIONER_CONFIG: config });
    expect(printed.code, printed.stderr).to.equal(0);
    // As a tenant's receiver is told to check it, with node:crypto.
    expect(printed.stdout).to.equal(`${createHmac('sha256', SECRET).update('pvep-tenant:alpha').digest('hex')}\n`);
    expect(printed.stdout).to.not.include(SECRET);

    const bad = await cli(['--webhook-key', 'Alpha Corp'], cwd, { PVE_PROVISIONER_CONFIG: config });
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/^pve-provisioner tenants: --webhook-key: "Alpha Corp" is not a tenant name/);

    writeFileSync(config, JSON.stringify({ webhooks: { secretFile: join(cwd, 'missing') } }));
    const missing = await cli(['--webhook-key', 'alpha'], cwd, { PVE_PROVISIONER_CONFIG: config });
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.match(/^pve-provisioner tenants: webhooks\.secretFile: /);
    expect(missing.stdout).to.equal('');
  });
});
