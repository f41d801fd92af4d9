// SPEC 30 and 32 (issue 34): warm pools among several clusters. A pool's
// members are created in its cluster (the first when it names none), and
// a create claims only from its own cluster's pools: a create of the
// shape placed in another cluster goes the cold way, and does not count
// as the pool's demand.
import { expect } from 'chai';
import { shapeFingerprint } from '../../src/pools/fingerprint.js';
import type { PoolClaim, PoolConfig } from '../../src/pools/types.js';
import { writeLastHealth } from '../../src/queue/health-store.js';
import { createHarness, type Harness } from '../support/harness.js';
import { poolWorld, type PoolWorld } from '../support/pool-members.js';

const UBUNTU = { name: 'ubuntu', templates: { pve1: 9001, pve2: 9002 }, user: 'ubuntu' };
const CLUSTERS = [
  { name: 'east', url: 'sim', images: [UBUNTU] },
  { name: 'west', url: 'sim', images: [UBUNTU] },
];

async function jobData(h: Harness, jobId: string): Promise<{ cluster?: string; claim?: PoolClaim; poolMember?: string } | undefined> {
  return (await h.queues.vm.getJob(jobId))?.data as { cluster?: string; claim?: PoolClaim; poolMember?: string } | undefined;
}

describe('warm pools among several clusters (SPEC 30, 32)', function () {
  let h: Harness;
  let world: PoolWorld;
  let westPool: PoolConfig;
  let eastPool: PoolConfig;
  beforeEach(() => {
    h = createHarness('pool-clusters', {
      config: {
        proxmox: { clusters: CLUSTERS },
        pools: [
          { name: 'small', minIdle: 1, cores: 1, memoryMiB: 1024, cluster: 'west' },
          { name: 'big', minIdle: 1, cores: 4, memoryMiB: 4096 },
        ],
      },
    });
    const [small, big] = h.config.pools;
    if (small === undefined || big === undefined) throw new Error('pools not configured');
    [westPool, eastPool] = [small, big];
    world = poolWorld(h.redis, h.prefix, h.config);
  });
  afterEach(async () => {
    await world.queues.close();
    await h.close();
  });

  it("creates a pool's members in its cluster, the first cluster's for a pool naming none", async () => {
    const west = await world.idleMember(westPool, 100201, 'pve1');
    const east = await world.idleMember(eastPool, 100202, 'pve2');
    expect((await world.writers.registry.get(west.name))?.cluster).to.equal('west');
    expect((await world.writers.registry.get(east.name))?.cluster).to.equal('east');
    const record = await world.writers.registry.get(west.name);
    expect(await jobData(h, record?.jobId ?? '')).to.include({ cluster: 'west', poolMember: 'small' });
  });

  it("claims only from the pools of the create's cluster: another cluster's create of the shape goes cold", async () => {
    const member = await world.idleMember(westPool, 100211, 'pve1');
    const shape = { cores: 1, memoryMiB: 1024 };
    const east = await h.client.createVm({ name: 'cold-east', cluster: 'east', ...shape });
    expect(east).to.include({ origin: 'cold' });
    expect(east, 'no pool of east was tried: no miss').not.to.have.property('warmPool');
    expect(await jobData(h, east.jobId)).not.to.have.property('claim');
    // Placed by free memory in west, it claims west's member.
    await writeLastHealth(h.redis, h.prefix, [
      { node: 'pve1', cluster: 'east', ok: true, reasons: [], freeMemoryMiB: 10 },
      { node: 'pve1', cluster: 'west', ok: true, reasons: [], freeMemoryMiB: 9000 },
    ]);
    const west = await h.client.createVm({ name: 'warm-west', ...shape });
    expect(west).to.include({ origin: 'pool', warmPool: 'small' });
    expect(await jobData(h, west.jobId)).to.deep.include({ cluster: 'west' });
    expect((await jobData(h, west.jobId))?.claim?.member).to.equal(member.name);
  });

  it("gives a pool naming its cluster a fingerprint of its own, so moved to another cluster its old members are of another shape (drained); one naming none keeps the one it had", () => {
    const { cluster: _west, ...none } = westPool;
    expect(shapeFingerprint(none)).to.equal('v1 image=ubuntu cores=1 memoryMiB=1024 diskGiB=10 bridge=- vlanTag=- node=-');
    expect(shapeFingerprint(westPool)).to.equal(`${shapeFingerprint(none)} cluster=west`);
    expect(shapeFingerprint({ ...westPool, cluster: 'east' })).not.to.equal(shapeFingerprint(westPool));
  });
});
