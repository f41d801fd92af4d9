// SPEC 32, SPEC 7 (issue 34): proxmox.clusters. Each entry names its
// cluster and URL and takes what it leaves out from the single-cluster
// keys; a bad entry stops the load naming the entry and the field; an
// empty list is the one-cluster form, one cluster `default` made of the
// single keys, whose view is the config itself and whose Redis keys do
// not move.
import { expect } from 'chai';
import { loadConfig } from '../../src/config/index.js';
import { clusterKeyPrefix, clustersOf, configForCluster, DEFAULT_CLUSTER, isMultiCluster } from '../../src/config/clusters.js';
import { loadError } from '../support/config-error.js';

const B_NODES = [{ name: 'b1', template: 9101, isoStorage: 'seeds' }];

function withClusters(clusters: unknown[]): Record<string, string> {
  return { PROXMOX_CLUSTERS: JSON.stringify(clusters) };
}

describe('config proxmox.clusters (SPEC 32)', () => {
  it('is the one-cluster form by default: one cluster "default" of the single keys, the config its own view', () => {
    const config = loadConfig({ env: {} });
    expect(isMultiCluster(config)).to.equal(false);
    const [only, ...rest] = clustersOf(config);
    expect(rest).to.deep.equal([]);
    expect(only).to.include({ name: DEFAULT_CLUSTER, url: config.proxmox.url, tokenFile: config.proxmox.tokenFile, maxRequestsPerSecond: config.proxmox.maxRequestsPerSecond });
    expect(only?.nodes).to.deep.equal(config.proxmox.nodes);
    expect(configForCluster(config, only!)).to.equal(config);
    expect(clusterKeyPrefix('pvep', configForCluster(config, only!).proxmox.clusterName)).to.equal('pvep');
  });

  it('fills each entry from the single-cluster keys and keeps what it gives, in the configured order', () => {
    const config = loadConfig({ env: { ...withClusters([{ name: 'a', url: 'sim' }, { name: 'b', url: 'https://pve-b.example:8006', tokenFile: 'var/b-token', nodes: B_NODES, maxRequestsPerSecond: 5, daemonSlotsPerNode: 1 }]), PROXMOX_MAX_REQUESTS_PER_SECOND: '12' } });
    const [a, b] = clustersOf(config);
    expect(a).to.include({ name: 'a', url: 'sim', tokenFile: 'var/proxmox-token', maxRequestsPerSecond: 12, daemonSlotsPerNode: 2 });
    expect(a?.nodes.map((n) => n.name)).to.deep.equal(['pve1', 'pve2']);
    expect(b).to.include({ name: 'b', url: 'https://pve-b.example:8006', tokenFile: 'var/b-token', maxRequestsPerSecond: 5, daemonSlotsPerNode: 1 });
    expect(b?.nodes).to.deep.equal(B_NODES);
  });

  it("gives each cluster its own view and its own Redis keys' prefix", () => {
    const config = loadConfig({ env: withClusters([{ name: 'a', url: 'sim' }, { name: 'b', url: 'https://pve-b.example:8006', nodes: B_NODES }]) });
    const b = clustersOf(config)[1]!;
    const view = configForCluster(config, b);
    expect(view.proxmox).to.include({ url: 'https://pve-b.example:8006', clusterName: 'b' });
    expect(view.proxmox.nodes).to.deep.equal(B_NODES);
    expect(view.jobs).to.equal(config.jobs);
    expect(clusterKeyPrefix('pvep', view.proxmox.clusterName)).to.equal('pvep:cluster:b');
  });

  it('SIM_CLUSTERS=2 with proxmox.url "sim" is two simulated clusters, sim1 and sim2', () => {
    expect(clustersOf(loadConfig({ env: { SIM_CLUSTERS: '2' } })).map((c) => [c.name, c.url])).to.deep.equal([['sim1', 'sim'], ['sim2', 'sim']]);
    expect(isMultiCluster(loadConfig({ env: { SIM_CLUSTERS: '1' } }))).to.equal(false);
  });

  const refused: [string, Record<string, string>, RegExp][] = [
    ['a list that is no list', { PROXMOX_CLUSTERS: 'a' }, /proxmox\.clusters: must be a JSON list of \{name, url, tokenFile\?/],
    ['a name with capitals', withClusters([{ name: 'A', url: 'sim' }]), /proxmox\.clusters: entry 0: name must be 1 to 20 of a-z/],
    ['a name twice', withClusters([{ name: 'a', url: 'sim' }, { name: 'a', url: 'sim' }]), /names cluster "a" twice/],
    ['an unknown key', withClusters([{ name: 'a', url: 'sim', tag: 'x' }]), /entry 0 has unknown key "tag"; allowed: name, url/],
    ['plain http off loopback', withClusters([{ name: 'a', url: 'http://pve.example:8006' }]), /entry 0 \(a\): url plain http:\/\/ is only allowed for loopback/],
    ['a bad node', withClusters([{ name: 'a', url: 'sim', nodes: [{ name: 'n1' }] }]), /entry 0 \(a\): nodes entry 0 \(n1\): isoStorage is required/],
    ['a negative budget', withClusters([{ name: 'a', url: 'sim', maxRequestsPerSecond: -1 }]), /entry 0 \(a\): maxRequestsPerSecond must be a whole number/],
    ['an image its cluster cannot serve', withClusters([{ name: 'a', url: 'sim' }, { name: 'b', url: 'sim', nodes: B_NODES, images: [{ name: 'deb', templates: { pve1: 9001 } }] }]), /cluster b: proxmox\.images/],
    ['a pool in no configured cluster', { ...withClusters([{ name: 'a', url: 'sim' }]), POOLS: '[{"name":"web","minIdle":0,"cluster":"zz"}]' }, /pools\[0\]\.cluster "zz" is not a configured cluster \(a\)/],
  ];
  for (const [what, env, message] of refused) {
    it(`refuses ${what}, naming it`, () => {
      expect(loadError(env)).to.match(message);
    });
  }
});
