// SPEC 32 (issue 34): "the CLI and the client follow". `pve-provisioner
// clusters [--json]` prints each cluster's health, nodes fit, free memory
// and images (as GET /v1/clusters answers); `list` takes --cluster and
// shows a CLUSTER column with several clusters only; `enqueue create`
// takes --cluster from the job table.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { clustersTable } from '../../src/cli/clusters.js';
import { listTable } from '../../src/cli/list.js';
import type { DesiredView } from '../../src/client.js';
import { REDIS_URL, uniquePrefix } from '../support/redis.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsx = pathToFileURL(join(repo, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', tsx, join(repo, 'src', 'cli.ts'), ...args],
      { cwd, env: { ...process.env, REDIS_URL, REDIS_PREFIX: uniquePrefix('cli-clusters'), PVE_PROVISIONER_CONFIG: '', LOG_LEVEL: 'warn' }, timeout: 50_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const vm = (name: string, cluster?: string): DesiredView & { cluster?: string } => ({
  name,
  state: 'present',
  tenant: 'default',
  generation: 1,
  updatedAt: '2030-01-02T03:04:05.000Z',
  lastKnown: { state: 'running', node: 'pve1', vmid: 100001, at: '2030-01-02T03:04:05.000Z' },
  ...(cluster === undefined ? {} : { cluster }),
});

describe('pve-provisioner clusters and --cluster (SPEC 32)', function () {
  this.timeout(120_000);
  let cwd: string;
  before(() => (cwd = mkdtempSync(join(tmpdir(), 'pvep-cli-clusters-'))));
  after(() => rmSync(cwd, { recursive: true, force: true }));

  it('shows each cluster with its health, nodes fit, free memory and images', () => {
    const text = clustersTable([
      { name: 'east', health: 'up', nodes: [{ name: 'pve1', ok: true, reasons: [] }, { name: 'pve2', ok: false, reasons: [] }], images: ['debian', 'ubuntu'], freeMemoryMiB: 3000, checkedAt: 'x' },
      { name: 'west', health: 'away', nodes: [{ name: 'pve1', ok: false, reasons: [] }], images: ['ubuntu'], freeMemoryMiB: 0, checkedAt: 'x' },
      { name: 'north', health: 'unknown', nodes: [{ name: 'pve9' }], images: [], freeMemoryMiB: 0 },
    ]);
    const [header, east, west, north] = text.trimEnd().split('\n').map((line) => line.split(/ {2,}/));
    expect(header).to.deep.equal(['CLUSTER', 'HEALTH', 'NODES FIT', 'FREE MEMORY MIB', 'IMAGES']);
    expect(east).to.deep.equal(['east', 'up', '1/2', '3000', 'debian,ubuntu']);
    expect(west).to.deep.equal(['west', 'away', '0/1', '0', 'ubuntu']);
    expect(north).to.deep.equal(['north', 'unknown', '-', '-', '-']);
  });

  it('answers the one-cluster form with --json as {"clusters": [the cluster default]}, exit 0', async () => {
    const run = await cli(['clusters', '--json'], cwd);
    expect(run.code, run.stderr).to.equal(0);
    const { clusters } = JSON.parse(run.stdout) as { clusters: { name: string; health: string; nodes: { name: string }[] }[] };
    expect(clusters.map((c) => [c.name, c.health, c.nodes.map((n) => n.name)])).to.deep.equal([['default', 'unknown', ['pve1', 'pve2']]]);
  });

  it('lists names with a CLUSTER column only with several clusters: the one-cluster table is as it was', () => {
    const one = listTable([vm('web-1')], false).trimEnd().split('\n').map((line) => line.split(/ {2,}/));
    expect(one[0]).to.deep.equal(['NAME', 'STATE', 'LAST SEEN', 'NODE', 'VMID', 'ADDRESS', 'EXPIRES', 'UPDATED']);
    expect(one[1]).to.deep.equal(['web-1', 'present', 'running', 'pve1', '100001', '-', '-', '2030-01-02T03:04:05.000Z']);
    const several = listTable([vm('web-1', 'east'), vm('web-2')], true).trimEnd().split('\n').map((line) => line.split(/ {2,}/));
    expect(several[0]).to.deep.equal(['NAME', 'STATE', 'CLUSTER', 'LAST SEEN', 'NODE', 'VMID', 'ADDRESS', 'EXPIRES', 'UPDATED']);
    expect(several[1]?.slice(0, 4)).to.deep.equal(['web-1', 'present', 'east', 'running']);
    expect(several[2]?.slice(0, 3)).to.deep.equal(['web-2', 'present', '-']);
  });

  it('documents list --cluster, create --cluster and the clusters command in the help', async () => {
    const [list, create, top] = [await cli(['list', '--help'], cwd), await cli(['enqueue', 'create', '--help'], cwd), await cli(['--help'], cwd)];
    expect(list.stdout).to.match(/^usage: pve-provisioner list .*\[--cluster CLUSTER\]/);
    expect(list.stdout).to.contain('--cluster  only names that live in that cluster');
    expect(create.stdout).to.contain('[--cluster CLUSTER]');
    expect(top.stdout).to.match(/\n {2}clusters {3}list the Proxmox clusters/);
  });

  it('takes --cluster on list, and a value the listing refuses is named as --cluster, exit 2', async () => {
    const run = await cli(['list', '--cluster', 'Not A Cluster'], cwd);
    expect(run.code).to.equal(2);
    expect(run.stderr).to.match(/^pve-provisioner list: --cluster /);
  });
});
