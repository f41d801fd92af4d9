// SPEC 30, SPEC 6 (issue 32): `pve-provisioner enqueue create` takes
// --no-pool (the cold way) and its --json answer says the origin: pool
// when the create claimed a warm pool's idle VM, cold otherwise.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PoolConfig } from '../../src/pools/types.js';
import { keys } from '../../src/redis-keys.js';
import { createHarness, type Harness } from '../support/harness.js';
import { poolWorld, type PoolWorld } from '../support/pool-members.js';
import { REDIS_URL } from '../support/redis.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsx = pathToFileURL(join(repo, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const IMAGES = [{ name: 'ubuntu', templates: { pve1: 9001, pve2: 9002 }, user: 'ubuntu' }];
const POOLS = [{ name: 'web', minIdle: 1 }];

describe('pve-provisioner enqueue create and warm pools (SPEC 30)', function () {
  this.timeout(120_000);
  let h: Harness;
  let world: PoolWorld;
  let cwd: string;

  const cli = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const env = { ...process.env, REDIS_URL, REDIS_PREFIX: h.config.redis.prefix, PVE_PROVISIONER_CONFIG: '', LOG_LEVEL: 'warn', PROXMOX_IMAGES: JSON.stringify(IMAGES), POOLS: JSON.stringify(POOLS) };
      execFile(process.execPath, ['--import', tsx, join(repo, 'src', 'cli.ts'), ...args], { cwd, env, timeout: 60_000 }, (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }));
    });

  before(() => {
    cwd = mkdtempSync(join(tmpdir(), 'pvep-cli-pools-'));
    h = createHarness('cli-pools', { config: { proxmox: { images: IMAGES }, pools: POOLS } });
    world = poolWorld(h.redis, h.prefix, h.config);
  });
  after(async () => {
    await world.queues.close();
    await h.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('--no-pool goes cold past an idle member; without it the create claims the member; --json says which', async () => {
    const member = await world.idleMember(h.config.pools[0] as PoolConfig, 100501, 'pve1');
    const cold = await cli(['enqueue', 'create', '--name', 'cli-cold', '--no-pool', '--json']);
    expect(cold.code, cold.stderr).to.equal(0);
    expect(JSON.parse(cold.stdout)).to.include({ name: 'cli-cold', existing: false, origin: 'cold' });
    expect(await h.redis.zrange(keys.poolIdle(h.prefix, 'web'), 0, -1)).to.deep.equal([member.name]);
    const warm = await cli(['enqueue', 'create', '--name', 'cli-warm', '--json']);
    expect(JSON.parse(warm.stdout)).to.include({ name: 'cli-warm', origin: 'pool' });
    expect(await h.redis.zrange(keys.poolIdle(h.prefix, 'web'), 0, -1)).to.deep.equal([]);
  });
});
