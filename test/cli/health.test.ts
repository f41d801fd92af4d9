// `pve-provisioner health` (SPEC 19, issue 7): the last result the health
// job kept in Redis, and an exit status a script can act on.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { expect } from 'chai';
import { writeLastHealth } from '../../src/queue/health-store.js';
import { REDIS_URL, deletePrefix, keyPrefix, newRedis, uniquePrefix } from '../support/redis.js';

function health(prefix: string): { status: number | null; stdout: string; stderr: string } {
  const cli = resolve(import.meta.dirname, '../../src/cli.ts');
  const env = { ...process.env, PVE_PROVISIONER_CONFIG: '', REDIS_URL, REDIS_PREFIX: prefix };
  return spawnSync(process.execPath, ['--import', 'tsx', cli, 'health'], { env, encoding: 'utf8' });
}

describe('pve-provisioner health (SPEC 19)', function () {
  this.timeout(30_000);
  const prefix = uniquePrefix('cli-health');
  const redis = newRedis();

  after(async () => {
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it('exits 1 and says why when no health job has run yet', () => {
    const out = health(prefix);
    expect(out.status).to.equal(1);
    expect(out.stderr).to.match(/no health result yet/);
  });

  it('prints the last result and exits 0 when every node is ok', async () => {
    await writeLastHealth(redis, keyPrefix(prefix), [{ node: 'pve1', ok: true, reasons: [] }]);
    const out = health(prefix);
    expect(out.status, out.stderr).to.equal(0);
    expect((JSON.parse(out.stdout) as { nodes: unknown[] }).nodes).to.deep.equal([{ node: 'pve1', ok: true, reasons: [] }]);
  });

  it('exits 1 naming the node and its reason when a node is not ok', async () => {
    await writeLastHealth(redis, keyPrefix(prefix), [
      { node: 'pve1', ok: true, reasons: [] },
      { node: 'pve2', ok: false, reasons: [{ reason: 'StorageNotFound', detail: 'proxy-seeds is not on pve2' }] },
    ]);
    const out = health(prefix);
    expect(out.status).to.equal(1);
    expect(out.stderr).to.match(/pve2: StorageNotFound \(proxy-seeds is not on pve2\)/);
  });
});
