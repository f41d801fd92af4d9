// SPEC 6, 27: the producer library needs no config loader. It checks jobs
// against the settings it is given, and against the service's own
// defaults for any part left out; a bad setting is refused naming its key.
// Given no config it goes by the one the service publishes in Redis:
// test/client/published-config.test.ts.
import { expect } from 'chai';
import { PRODUCER_DEFAULTS, ProducerConfigError, ValidationError, createProvisionerClient, createUncheckedProvisionerClient } from '../../src/client.js';
import { loadConfig } from '../../src/config/index.js';
import { producerConfig } from '../../src/config/producer.js';

/** The rejection of `call`, or undefined when it resolved. */
async function refusal(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => undefined,
    (err: unknown) => err,
  );
}

// Port 1: nothing listens; every create below is refused before any connection.
const NOWHERE = 'redis://127.0.0.1:1';

describe('the producer library without the service config (SPEC 6, 27)', () => {
  it("its defaults are the service's defaults (config/default.json over the schema)", () => {
    const service = loadConfig({ env: {} });
    const { attempts, backoffMs, keepCompletedCount, keepCompletedSeconds, keepFailedCount, keepFailedSeconds } = service.jobs;
    expect(PRODUCER_DEFAULTS).to.deep.equal({
      proxmox: {
        nodes: service.proxmox.nodes.map(({ name }) => ({ name })),
        defaults: service.proxmox.defaults,
        limits: service.proxmox.limits,
        images: service.proxmox.images,
        defaultImage: service.proxmox.defaultImage,
        networks: service.proxmox.networks,
      },
      pools: service.pools,
      jobs: { attempts, backoffMs, keepCompletedCount, keepCompletedSeconds, keepFailedCount, keepFailedSeconds },
      registry: service.registry,
      leases: { defaultSeconds: service.leases.defaultSeconds, maxSeconds: service.leases.maxSeconds, warnSeconds: service.leases.warnSeconds, onExpiry: service.leases.onExpiry },
    });
  });

  it('given limits and nodes replace the defaults, the rest stays default', async () => {
    const client = createProvisionerClient({ redisUrl: NOWHERE, prefix: 'unused', config: { proxmox: { nodes: [{ name: 'edge-a' }], limits: { maxCores: 4 } } } });
    const err = await refusal(client.createVm({ name: 'small-1', cores: 5, memoryMiB: PRODUCER_DEFAULTS.proxmox.limits.maxMemoryMiB + 1, node: 'pve1' }));
    await client.close();
    expect((err as ValidationError).fields.map((f) => f.field)).to.deep.equal(['node', 'cores', 'memoryMiB']);
    expect(producerConfig({ proxmox: { limits: { maxCores: 4 } } }).proxmox.limits).to.deep.equal({ ...PRODUCER_DEFAULTS.proxmox.limits, maxCores: 4 });
  });

  it('given images, a create naming an unknown image, or a node its image is not served on, is a ValidationError naming image (SPEC 27)', async () => {
    const images: { name: string; templates: Record<string, number> }[] = [
      { name: 'debian', templates: { pve1: 9001, pve2: 9002 } },
      { name: 'only1', templates: { pve1: 9101 } },
    ];
    const client = createUncheckedProvisionerClient({ redisUrl: NOWHERE, prefix: 'unused', config: { proxmox: { images } } });
    const unknown = await refusal(client.createVm({ name: 'img-1', image: 'ubuntu' }));
    const unserved = await refusal(client.createVm({ name: 'img-2', image: 'only1', node: 'pve2' }));
    await client.close();
    expect((unknown as ValidationError).fields.map((f) => f.field)).to.deep.equal(['image']);
    expect((unserved as ValidationError).fields.map((f) => f.field)).to.deep.equal(['image']);
  });

  it("takes the service's whole Config, reading only its own keys", () => {
    const service = loadConfig({ env: {}, overrides: { jobs: { attempts: 3, concurrency: 7 }, proxmox: { limits: { maxCores: 8 } } } });
    const config = producerConfig(service);
    expect(config.jobs).to.deep.equal({ ...PRODUCER_DEFAULTS.jobs, attempts: 3 });
    expect(config.proxmox.limits.maxCores).to.equal(8);
  });

  it('a bad setting is a ProducerConfigError naming the key and what it must be', () => {
    const bad: [object, RegExp][] = [
      [{ proxmox: { limits: { maxCores: 0 } } }, /config\.proxmox\.limits\.maxCores is 0; it must be an integer of at least 1/],
      [{ jobs: { attempts: 1.5 } }, /config\.jobs\.attempts is 1\.5/],
      [{ jobs: { keepFailedCount: -1 } }, /config\.jobs\.keepFailedCount is -1; it must be an integer of at least 0/],
      [{ registry: { tombstoneSeconds: '60' } }, /config\.registry\.tombstoneSeconds is "60"/],
      [{ proxmox: { nodes: [] } }, /config\.proxmox\.nodes must be a non-empty list/],
      [{ proxmox: { nodes: [{ name: 'a' }, { name: '' }] } }, /config\.proxmox\.nodes\[1\]\.name must be a non-empty string/],
      [{ proxmox: { images: [{ name: 'debian', templates: { pve9: 9001 } }] } }, /config\.proxmox\.images\[0\] \(debian\) names node "pve9", which is not in config\.proxmox\.nodes \(pve1, pve2\)/],
      [{ proxmox: { images: [{ name: '', templates: {} }] } }, /config\.proxmox\.images\[0\]\.name must be a non-empty string/],
      [{ proxmox: { defaultImage: 'ubuntu' } }, /config\.proxmox\.defaultImage "ubuntu" is not an image \(images: default\)/],
    ];
    for (const [settings, message] of bad) {
      expect(() => createUncheckedProvisionerClient({ redisUrl: NOWHERE, prefix: 'unused', config: settings }), JSON.stringify(settings))
        .to.throw(ProducerConfigError)
        .with.property('message')
        .that.matches(message);
    }
    // Zero keeps no finished job: allowed.
    expect(producerConfig({ jobs: { keepCompletedCount: 0 } }).jobs.keepCompletedCount).to.equal(0);
  });
});
