// SPEC 30, SPEC 6 (issue 32): the producer library is the door where a
// create claims, so it reads the warm pools: given (checked as the service
// checks them, less the image's user it is not told, defaults filled) or
// published. A config with warm pools is published as version 3, which a
// client older than them refuses rather than take a member's reserved
// name or go cold while members sit idle.
import { expect } from 'chai';
import { ProducerConfigError, createUncheckedProvisionerClient } from '../../src/client.js';
import { jobMeaningDifferences } from '../../src/config/producer-diff.js';
import { PUBLISHED_WARM_POOLS_VERSION, parsePublished, publishedProducerConfig } from '../../src/config/producer-published.js';
import { producerConfig } from '../../src/config/producer.js';
import { limitsFromConfig } from '../../src/job-table/schema.js';

const IMAGES = [{ name: 'ubuntu', templates: { pve1: 9001, pve2: 9002 } }];
const WEB = { name: 'web', minIdle: 2 };
const FILLED = { name: 'web', image: 'ubuntu', cores: 2, memoryMiB: 2048, diskGiB: 10, minIdle: 2, maxIdle: 2, maxAgeMinutes: 1440 };

describe('the producer library and warm pools (SPEC 30, SPEC 6)', () => {
  it('takes given pools with the defaults filled, none by default, and gives them to the door (JobLimits)', () => {
    expect(producerConfig().pools).to.deep.equal([]);
    const config = producerConfig({ proxmox: { images: IMAGES }, pools: [WEB] });
    expect(config.pools).to.deep.equal([FILLED]);
    expect(limitsFromConfig(config).pools).to.deep.equal([FILLED]);
  });

  it('refuses a bad pool as a ProducerConfigError naming pools[i].<field>', () => {
    const bad: [object, RegExp][] = [
      [{ pools: [{ name: 'web' }] }, /config\.pools\[0\]\.minIdle is required/],
      [{ pools: [{ ...WEB, name: 'Web' }] }, /config\.pools\[0\]\.name must be 1 to 20/],
      [{ proxmox: { images: IMAGES }, pools: [{ ...WEB, node: 'pve9' }] }, /config\.pools\[0\]\.node "pve9" is not in proxmox\.nodes/],
      [{ proxmox: { images: IMAGES }, pools: [WEB, { name: 'web2', minIdle: 1 }] }, /config\.pools\[1\] \(web2\) has the same shape as pools\[0\] \(web\)/],
    ];
    for (const [settings, message] of bad) {
      expect(() => createUncheckedProvisionerClient({ redisUrl: 'redis://127.0.0.1:1', prefix: 'unused', config: settings }), JSON.stringify(settings))
        .to.throw(ProducerConfigError)
        .with.property('message')
        .that.matches(message);
    }
  });

  it('publishes the pools as version 3, read back whole; a client reading versions 1 and 2 only would refuse it', () => {
    const published = publishedProducerConfig({ proxmox: { images: IMAGES, networks: [{ name: 'lan', bridge: 'vmbr0', cidr: '127.77.0.0/24' }] }, pools: [WEB] });
    expect(published.version).to.equal(PUBLISHED_WARM_POOLS_VERSION).and.to.equal(3);
    expect(published.config.pools).to.deep.equal([FILLED]);
    expect(parsePublished(JSON.stringify(published), 'k')).to.deep.equal({ kind: 'found', config: published.config });
    expect(publishedProducerConfig({ proxmox: { images: IMAGES } }).version).to.equal(1);
  });

  it("a given config whose pools' names or shapes differ from the published one is reported; their idle counts are not", () => {
    const published = producerConfig({ proxmox: { images: IMAGES }, pools: [WEB] });
    expect(jobMeaningDifferences(producerConfig({ proxmox: { images: IMAGES }, pools: [{ ...WEB, cores: 4 }] }), published).map((d) => d.key)).to.deep.equal(['pools']);
    expect(jobMeaningDifferences(producerConfig({ proxmox: { images: IMAGES }, pools: [{ ...WEB, name: 'www' }] }), published).map((d) => d.key)).to.deep.equal(['pools']);
    expect(jobMeaningDifferences(producerConfig({ proxmox: { images: IMAGES }, pools: [{ ...FILLED, minIdle: 5, maxIdle: 9, maxAgeMinutes: 0 }] }), published)).to.deep.equal([]);
  });
});
