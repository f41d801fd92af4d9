// SPEC 31 at the CLI: `pve-provisioner lease NAME --ttl N [--shorten]`
// renews through the producer library and prints the new expiry; a
// renewal that would shorten without --shorten exits 1 saying so; a bad
// --ttl exits 2 naming the flag; `list --expiring-before` filters. Each
// runs as a child process on the real Redis under the test's prefix.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { createProvisionerClient, type ProvisionerClient } from '../../src/client.js';
import { TSX_LOADER, runNode, type NodeRun } from '../support/node-run.js';
import { REDIS_URL, deletePrefix, testConfig, uniquePrefix } from '../support/redis.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('pve-provisioner lease and list --expiring-before (SPEC 31)', function () {
  this.timeout(120_000);
  let prefix: string;
  let cwd: string;
  let redis: Redis;
  let client: ProvisionerClient;

  const cli = (args: string[]): Promise<NodeRun> =>
    runNode(['--import', TSX_LOADER, join(repo, 'src', 'cli.ts'), ...args], cwd, { REDIS_URL, REDIS_PREFIX: prefix, PVE_PROVISIONER_CONFIG: '', LOG_LEVEL: 'warn' }, 60_000);

  before(() => {
    prefix = uniquePrefix('cli-lease');
    cwd = mkdtempSync(join(tmpdir(), 'pvep-cli-lease-'));
    redis = new Redis(REDIS_URL);
    const config = testConfig(prefix);
    client = createProvisionerClient({ redisUrl: REDIS_URL, redis: config.redis, prefix, config });
  });
  after(async () => {
    await client.close();
    await deletePrefix(redis, prefix);
    redis.disconnect();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('lease NAME --ttl N --json moves the expiry and prints the lease; an earlier one without --shorten exits 1 and changes nothing', async () => {
    await client.createVm({ name: 'web-1', ttlSeconds: 60 });
    const renewed = await cli(['lease', 'web-1', '--ttl', '7200', '--json']);
    expect(renewed.code, renewed.stderr).to.equal(0);
    const lease = JSON.parse(renewed.stdout) as { name: string; expiresAt: string; version: number };
    expect(lease).to.include({ name: 'web-1', version: 2 });
    expect((await client.getVm('web-1'))?.expiresAt).to.equal(lease.expiresAt);
    const shorter = await cli(['lease', 'web-1', '--ttl', '60']);
    expect(shorter.code).to.equal(1);
    expect(shorter.stderr).to.include('--shorten');
    expect((await client.getVm('web-1'))?.expiresAt).to.equal(lease.expiresAt);
  });

  it('lease with a --ttl that is no number exits 2 naming --ttl', async () => {
    const bad = await cli(['lease', 'web-1', '--ttl', 'soon']);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/pve-provisioner lease: --ttl must be an integer/);
  });

  it('list --expiring-before TIME --json lists only the names whose lease ends before then', async () => {
    await client.createVm({ name: 'soon', ttlSeconds: 60 });
    await client.createVm({ name: 'never' });
    const listed = await cli(['list', '--expiring-before', new Date(Date.now() + 600_000).toISOString(), '--json']);
    expect(listed.code, listed.stderr).to.equal(0);
    const { vms } = JSON.parse(listed.stdout) as { vms: { name: string; expiresAt?: string }[] };
    expect(vms.map((vm) => vm.name)).to.deep.equal(['soon']);
    expect(vms[0]?.expiresAt).to.be.a('string');
  });
});
