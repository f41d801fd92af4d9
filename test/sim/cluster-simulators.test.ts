// SPEC 8, 32: one simulator per cluster whose url is "sim" (what `all`
// and `sim` start): each its own server and ports (the first on the port
// given, the others free), its own VMIDs and state (its own state file),
// accepting the token of its own cluster's tokenFile; the one-cluster form
// is the one simulator it always was.
import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import type { Config } from '../../src/config/types.js';
import { silentLogger } from '../../src/log.js';
import { startClusterSimulators, stateFileFor, type ClusterSimulators } from '../../src/cli/sim-clusters.js';
import { withSimScaledTimes } from '../../src/cli/sim-scaled-times.js';
import { freePort } from '../support/free-port.js';

async function apiStatus(url: string, tokenFile: string, path = '/version'): Promise<number> {
  const token = readFileSync(tokenFile, 'utf8').trim();
  return (await fetch(`${url}/api2/json${path}`, { headers: { Authorization: `PVEAPIToken=${token}` } })).status;
}

async function clusterName(url: string, tokenFile: string): Promise<string | undefined> {
  const token = readFileSync(tokenFile, 'utf8').trim();
  const answer = (await (await fetch(`${url}/api2/json/cluster/status`, { headers: { Authorization: `PVEAPIToken=${token}` } })).json()) as { data: { type: string; name: string }[] };
  return answer.data.find((entry) => entry.type === 'cluster')?.name;
}

async function plant(url: string, vmid: number, name: string): Promise<void> {
  const res = await fetch(`${url}/_sim/vms`, { method: 'POST', body: JSON.stringify({ node: 'pve1', vmid, config: { name, memory: 512 } }) });
  expect(res.status, await res.text()).to.equal(200);
}

async function vmNamed(url: string, vmid: number): Promise<string | undefined> {
  const state = (await (await fetch(`${url}/_sim/state`)).json()) as { vms: { vmid: number; config: { name?: string } }[] };
  return state.vms.find((vm) => vm.vmid === vmid)?.config.name;
}

describe('a simulator per simulated cluster (SPEC 8, 32)', () => {
  let dir: string;
  let sims: ClusterSimulators | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sim-clusters-'));
  });
  afterEach(async () => {
    await sims?.close();
    sims = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const twoClusters = (stateFile = ''): Config =>
    loadConfig({
      env: {},
      overrides: {
        proxmox: { clusters: [{ name: 'east', url: 'sim', tokenFile: join(dir, 'east-token') }, { name: 'west', url: 'sim', tokenFile: join(dir, 'west-token') }] },
        sim: { stateFile, vms: 1 },
      },
    });

  it('starts one per cluster, the first on the port given, each accepting only its own cluster\'s token (files created 0600)', async () => {
    const port = await freePort();
    const created: string[] = [];
    sims = await startClusterSimulators(twoClusters(), { logger: silentLogger(), firstPort: port, onTokenFileCreated: (file) => created.push(file) });
    expect(sims.list.map((one) => one.cluster)).to.deep.equal(['east', 'west']);
    const [east, west] = sims.list;
    if (east === undefined || west === undefined) throw new Error('two simulators');
    expect(east.running.port).to.equal(port);
    expect(west.running.port).not.to.equal(port);
    expect([...sims.urls]).to.deep.equal([['east', east.running.url], ['west', west.running.url]]);
    expect(created).to.deep.equal([join(dir, 'east-token'), join(dir, 'west-token')]);
    for (const file of created) expect(statSync(file).mode & 0o777).to.equal(0o600);
    expect(await apiStatus(east.running.url, east.tokenFile)).to.equal(200);
    expect(await apiStatus(west.running.url, west.tokenFile)).to.equal(200);
    expect(await apiStatus(east.running.url, west.tokenFile), "west's token on east").to.equal(401);
    expect(await apiStatus(west.running.url, east.tokenFile), "east's token on west").to.equal(401);
    // Each node of each cluster has a port of its own.
    const ports = sims.list.flatMap((one) => Object.values(one.running.nodeUrls));
    expect(new Set(ports).size).to.equal(4);
    expect(await clusterName(east.running.url, east.tokenFile)).to.equal('east');
    expect(await clusterName(west.running.url, west.tokenFile)).to.equal('west');
  });

  it('each has its own VMIDs: the same VMID on both for different VMs, one taken offline leaves the other answering', async () => {
    sims = await startClusterSimulators(twoClusters(), { logger: silentLogger(), firstPort: 0 });
    const [east, west] = sims.list;
    if (east === undefined || west === undefined) throw new Error('two simulators');
    await plant(east.running.url, 4242, 'on-east');
    expect(await vmNamed(west.running.url, 4242), 'not on west').to.equal(undefined);
    await plant(west.running.url, 4242, 'on-west');
    expect(await vmNamed(east.running.url, 4242)).to.equal('on-east');
    expect(await vmNamed(west.running.url, 4242)).to.equal('on-west');
    await west.running.offline();
    expect(await apiStatus(east.running.url, east.tokenFile)).to.equal(200);
    const refused = await fetch(`${west.running.url}/_sim/nodes`).then(
      () => 'answered',
      (err: unknown) => (err as { cause?: { code?: string } }).cause?.code,
    );
    expect(refused).to.equal('ECONNREFUSED');
    await west.running.online();
    expect(await vmNamed(west.running.url, 4242)).to.equal('on-west');
  });

  it('with sim.stateFile each keeps its own file: the first the file itself, the others one named after their cluster', async () => {
    const stateFile = join(dir, 'var', 'sim-state.json');
    sims = await startClusterSimulators(twoClusters(stateFile), { logger: silentLogger(), firstPort: 0 });
    expect(sims.list.map((one) => one.stateFile)).to.deep.equal([stateFile, join(dir, 'var', 'sim-state.west.json')]);
    await plant(sims.list[0]?.running.url ?? '', 4343, 'kept-east');
    await plant(sims.list[1]?.running.url ?? '', 4343, 'kept-west');
    await sims.close();
    sims = await startClusterSimulators(twoClusters(stateFile), { logger: silentLogger(), firstPort: 0 });
    expect(await vmNamed(sims.list[0]?.running.url ?? '', 4343)).to.equal('kept-east');
    expect(await vmNamed(sims.list[1]?.running.url ?? '', 4343)).to.equal('kept-west');
  });

  it('SIM_CLUSTERS=2 starts sim1 and sim2, sharing proxmox.tokenFile', async () => {
    const config = loadConfig({ env: { SIM_CLUSTERS: '2', PROXMOX_TOKEN_FILE: join(dir, 'token') }, overrides: { sim: { vms: 1 } } });
    sims = await startClusterSimulators(config, { logger: silentLogger(), firstPort: 0 });
    expect(sims.list.map((one) => [one.cluster, one.tokenFile])).to.deep.equal([
      ['sim1', join(dir, 'token')],
      ['sim2', join(dir, 'token')],
    ]);
    for (const one of sims.list) expect(await apiStatus(one.running.url, one.tokenFile)).to.equal(200);
  });

  it('the one-cluster form is the one simulator it was: cluster default, pv1 in /cluster/status, sim.stateFile as given', async () => {
    const stateFile = join(dir, 'state.json');
    const config = loadConfig({ env: { PROXMOX_TOKEN_FILE: join(dir, 'token') }, overrides: { sim: { stateFile, vms: 1 } } });
    sims = await startClusterSimulators(config, { logger: silentLogger(), firstPort: 0 });
    expect(sims.list.map((one) => [one.cluster, one.stateFile])).to.deep.equal([['default', stateFile]]);
    const [only] = sims.list;
    expect(await clusterName(only?.running.url ?? '', join(dir, 'token'))).to.equal('pv1');
    expect(existsSync(stateFile)).to.equal(true);
  });

  it('a cluster with a real URL gets no simulator', async () => {
    const config = loadConfig({
      env: {},
      overrides: { proxmox: { clusters: [{ name: 'real', url: 'https://pve.example:8006', tokenFile: join(dir, 'real-token') }, { name: 'lab', url: 'sim', tokenFile: join(dir, 'lab-token') }] }, sim: { vms: 1 } },
    });
    sims = await startClusterSimulators(config, { logger: silentLogger(), firstPort: 0 });
    expect(sims.list.map((one) => one.cluster)).to.deep.equal(['lab']);
    expect(existsSync(join(dir, 'real-token')), 'a real cluster\'s token file is not made').to.equal(false);
    // Not every cluster simulated: the service's guesses at Proxmox durations stay a real host's.
    expect(withSimScaledTimes(config, {}).budgets.firstAddressSeconds).to.equal(30);
    expect(withSimScaledTimes(twoClusters(), {}).budgets.firstAddressSeconds).to.be.below(30);
  });
});

describe('stateFileFor (SPEC 24, 32)', () => {
  it('keeps the file for the first simulated cluster and names the others after theirs', () => {
    expect(stateFileFor('var/sim-state.json', 0, 'sim1')).to.equal('var/sim-state.json');
    expect(stateFileFor('var/sim-state.json', 1, 'sim2')).to.equal('var/sim-state.sim2.json');
    expect(stateFileFor('/tmp/state', 2, 'lab')).to.equal('/tmp/state.lab');
  });
});
