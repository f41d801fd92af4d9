// SPEC 30, SPEC 25 (issue 32): on a Redis Cluster every warm pool script
// runs on one slot: the claim inside the accept's script (the claimer's
// record, the pool's idle set and members, the member's record, the
// address leases and held hash it derives), and the store's add, idle,
// drain and forget. A one-node Cluster refuses a script whose keys are in
// different slots (CROSSSLOT) just as a six-node one does.
import { expect } from 'chai';
import { Cluster } from 'ioredis';
import { createProvisionerClient, type ProvisionerClient } from '../../src/client.js';
import { hostPorts, keyPrefixOf } from '../../src/queue/redis-target.js';
import type { PoolClaim, PoolConfig } from '../../src/pools/types.js';
import { startOneNodeCluster, type OneNodeCluster } from '../support/redis-one-node-cluster.js';
import { poolWorld, type PoolWorld } from '../support/pool-members.js';
import { testConfig, uniquePrefix } from '../support/redis.js';

const NODES = [{ name: 'pve1', isoStorage: 'proxy-seeds', bridge: 'vmbr1' }];
const IMAGES = [{ name: 'ubuntu', templates: { pve1: 9001 }, user: 'ubuntu' }];
const LAN = { name: 'lan', bridge: 'vmbr1', cidr: '127.77.0.0/24', gateway: '127.77.0.1' };

describe('warm pools on a Redis Cluster (SPEC 30, SPEC 25)', function () {
  this.timeout(60_000);
  let cluster: OneNodeCluster;
  let client: ProvisionerClient;
  let redis: Cluster;
  let world: PoolWorld;
  before(async () => {
    cluster = await startOneNodeCluster();
  });
  after(async () => {
    await world.queues.close();
    await client.close();
    redis.disconnect();
    await cluster.close();
  });

  it("claims in the accept's one script, moving the address, and the store's scripts run on the one slot", async () => {
    const configured = uniquePrefix('pool-cluster');
    const config = testConfig(configured, { redis: { clusterNodes: [cluster.node] }, proxmox: { nodes: NODES, images: IMAGES, networks: [LAN] }, pools: [{ name: 'web', minIdle: 1 }] });
    const prefix = keyPrefixOf(configured, config.redis);
    expect(prefix).to.equal(`{${configured}}`);
    client = createProvisionerClient({ redisUrl: config.redis.url, redis: config.redis, prefix: configured, config });
    redis = new Cluster(hostPorts([cluster.node]), { redisOptions: { maxRetriesPerRequest: null } });
    world = poolWorld(redis, prefix, config);
    const web = config.pools[0] as PoolConfig;
    const member = await world.idleMember(web, 100301, 'pve1');
    const drained = await world.idleMember(web, 100302, 'pve1', new Date(Date.now() + 60_000));
    const answer = await client.createVm({ name: 'cl-1', uid: 'u-cl-1' });
    expect(answer).to.include({ origin: 'pool', address: member.address });
    expect(await world.store.takeForDrain('web', drained.name)).to.equal(true);
    expect((await client.createVm({ name: 'cl-2' })).origin).to.equal('cold');
    const claim = (await world.queues.vm.getJob(answer.jobId))?.data as { claim?: PoolClaim };
    expect(claim.claim?.member).to.equal(member.name);
    await world.store.forgetClaimed(claim.claim as PoolClaim);
    await world.store.removeMember('web', drained.name);
    expect(await world.store.members('web')).to.deep.equal([]);
    expect(await client.getVm(member.name)).to.equal(undefined);
  });
});
