// SPEC 29, SPEC 6 (issue 31): the producer library is the door too, so it
// reads the address pools and the nodes' networks: given (checked as the
// service checks them, defaults filled) or published by the service. A
// config with pools is published as version 2, which a client older than
// the pools refuses to read rather than enqueue creates without a lease.
import { expect } from 'chai';
import { ProducerConfigError, createUncheckedProvisionerClient } from '../../src/client.js';
import { jobMeaningDifferences } from '../../src/config/producer-diff.js';
import { PUBLISHED_CONFIG_VERSION, parsePublished, publishedProducerConfig } from '../../src/config/producer-published.js';
import { producerConfig } from '../../src/config/producer.js';
import { producerConfigPublisher } from '../../src/queue/producer-config-store.js';
import { createHarness, type Harness } from '../support/harness.js';

const NODES = [
  { name: 'pve1', bridge: 'vmbr1', vlanTag: 20 },
  { name: 'pve2', bridge: 'vmbr1', vlanTag: 20 },
];
const POOL = { name: 'lan20', bridge: 'vmbr1', vlanTag: 20, cidr: '127.77.0.0/24' };
const COMPLETE = { ...POOL, dns: [], exclude: [], reuseCooldownSeconds: 600 };

describe('the producer library and address pools (SPEC 29, SPEC 6)', () => {
  it('takes given pools with the service\'s defaults filled, and none by default', () => {
    expect(producerConfig().proxmox.networks).to.deep.equal([]);
    expect(producerConfig({ proxmox: { nodes: NODES, networks: [POOL] } }).proxmox.networks).to.deep.equal([COMPLETE]);
  });

  it('refuses a bad pool or node network as a ProducerConfigError naming the key, entry and field', () => {
    const bad: [object, RegExp][] = [
      [{ proxmox: { networks: [{ ...POOL, cidr: '127.77.0.0/31' }] } }, /config\.proxmox\.networks: entry 0 \(lan20\): cidr 127\.77\.0\.0\/31 has prefix length 31/],
      [{ proxmox: { networks: [{ ...POOL, first: '127.78.0.1' }] } }, /config\.proxmox\.networks: entry 0 \(lan20\): first 127\.78\.0\.1 is not inside the cidr/],
      [{ proxmox: { networks: [POOL, { ...POOL, name: 'other' }] } }, /config\.proxmox\.networks: entries 0 \(lan20\) and 1 \(other\) are both for bridge vmbr1 VLAN 20/],
      [{ proxmox: { networks: 'lan' } }, /config\.proxmox\.networks: must be a JSON list/],
      [{ proxmox: { nodes: [{ name: 'pve1', vlanTag: 0 }] } }, /config\.proxmox\.nodes\[0\] \(pve1\): vlanTag must be an integer from 1 to 4094/],
      [{ proxmox: { nodes: [{ name: 'pve1', bridge: 7 }] } }, /config\.proxmox\.nodes\[0\] \(pve1\): bridge must be a bridge name/],
    ];
    for (const [settings, message] of bad) {
      expect(() => createUncheckedProvisionerClient({ redisUrl: 'redis://127.0.0.1:1', prefix: 'unused', config: settings }), JSON.stringify(settings))
        .to.throw(ProducerConfigError)
        .with.property('message')
        .that.matches(message);
    }
  });

  it('publishes the pools and each node\'s bridge and tag, as version 2 with pools and 1 without; both read back whole', () => {
    const withPools = publishedProducerConfig({ proxmox: { nodes: [...NODES, { name: 'pve3' }], networks: [POOL] } });
    expect(withPools.version).to.equal(2);
    expect(withPools.config.proxmox.nodes).to.deep.equal([...NODES, { name: 'pve3' }]);
    expect(withPools.config.proxmox.networks).to.deep.equal([COMPLETE]);
    expect(parsePublished(JSON.stringify(withPools), 'k')).to.deep.equal({ kind: 'found', config: withPools.config });
    const without = publishedProducerConfig({ proxmox: { nodes: NODES } });
    expect(without.version).to.equal(PUBLISHED_CONFIG_VERSION);
    expect(parsePublished(JSON.stringify(without), 'k')).to.deep.equal({ kind: 'found', config: without.config });
  });

  it('a given config whose pools or node networks differ from the published one is reported, key by key', () => {
    const published = producerConfig({ proxmox: { nodes: NODES, networks: [POOL] } });
    const given = producerConfig({ proxmox: { nodes: [NODES[0] ?? { name: 'pve1' }, { name: 'pve2' }], networks: [{ ...POOL, reuseCooldownSeconds: 60 }] } });
    expect(jobMeaningDifferences(given, published).map((d) => d.key)).to.deep.equal(['proxmox.nodes[].bridge/vlanTag', 'proxmox.networks']);
    expect(jobMeaningDifferences(published, producerConfig({ proxmox: { nodes: [...NODES].reverse(), networks: [COMPLETE] } }))).to.deep.equal([]);
  });

  describe('a client given no config', () => {
    let h: Harness;
    afterEach(() => h.close());

    it("takes its leases from the service's published pools", async () => {
      h = createHarness('published-pools', { config: { proxmox: { nodes: NODES.map((node) => ({ ...node, isoStorage: 'seeds', template: 9001 })), networks: [POOL] } } });
      // What the web and worker processes do at start.
      const publisher = producerConfigPublisher(h.redis, h.prefix, h.config);
      await publisher.write();
      publisher.stop();
      const bare = createUncheckedProvisionerClient({ redisUrl: 'unused', redis: h.config.redis, prefix: h.config.redis.prefix });
      try {
        expect(await bare.createVm({ name: 'via-published' })).to.include({ address: '127.77.0.1', addressPool: 'lan20' });
      } finally {
        await bare.close();
      }
    });
  });
});
