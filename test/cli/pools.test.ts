// SPEC 30: `pve-provisioner pools`: each configured warm pool's shape,
// bounds and VMs counted, as a table (here from listPools' answer) or
// --json; on a service with no pools it says so, or answers {"pools": []}.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { poolsTable } from '../../src/cli/pools.js';
import { REDIS_URL, uniquePrefix } from '../support/redis.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsx = pathToFileURL(join(repo, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

describe('pve-provisioner pools (SPEC 30)', function () {
  this.timeout(60_000);

  it('shows each pool with its shape, bounds, VMs idle, claimed and creating, and its refill target', () => {
    const text = poolsTable([
      { name: 'small', image: 'debian', cores: 1, memoryMiB: 512, diskGiB: 10, bridge: 'vmbr1', vlanTag: 20, minIdle: 3, maxIdle: 4, maxAgeMinutes: 60, idle: 2, claimed: 1, creating: 1, target: 3 },
      { name: 'big', image: 'debian', cores: 4, memoryMiB: 4096, diskGiB: 40, node: 'pve1', minIdle: 1, maxIdle: 1, maxAgeMinutes: 0, idle: 0, claimed: 0, creating: 1, target: 1 },
    ]);
    const [header, small, big] = text.trimEnd().split('\n').map((line) => line.split(/ {2,}/));
    expect(header).to.deep.equal(['POOL', 'IMAGE', 'CORES', 'MEMORY MIB', 'DISK GIB', 'NETWORK', 'NODE', 'MIN/MAX IDLE', 'MAX AGE', 'IDLE', 'CLAIMED', 'CREATING', 'TARGET']);
    expect(small).to.deep.equal(['small', 'debian', '1', '512', '10', 'vmbr1.20', '-', '3/4', '60m', '2', '1', '1', '3']);
    expect(big).to.deep.equal(['big', 'debian', '4', '4096', '40', '-', 'pve1', '1/1', 'never', '0', '0', '1', '1']);
  });

  it('answers {"pools": []} with --json on a service with no pools, exit 0', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'pvep-cli-pools-'));
    try {
      const run = await new Promise<{ code: number; stdout: string }>((resolve) => {
        execFile(
          process.execPath,
          ['--import', tsx, join(repo, 'src', 'cli.ts'), 'pools', '--json'],
          { cwd, env: { ...process.env, REDIS_URL, REDIS_PREFIX: uniquePrefix('cli-pools'), PVE_PROVISIONER_CONFIG: '', LOG_LEVEL: 'warn' }, timeout: 50_000 },
          (err, stdout) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout }),
        );
      });
      expect(run.code).to.equal(0);
      expect(JSON.parse(run.stdout)).to.deep.equal({ pools: [] });
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
