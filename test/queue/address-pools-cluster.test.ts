// SPEC 29, SPEC 25 (issue 31): on a Redis Cluster the lease is taken in
// the same one script, its keys (the record, the leases, the pool's held,
// cooling and cursor) all under the service's hash tag, so one slot. A
// one-node Cluster refuses a script whose keys are in different slots
// just as a six-node one does.
import { expect } from 'chai';
import { PoolExhaustedError, createProvisionerClient, type ProvisionerClient } from '../../src/client.js';
import { rejection } from '../support/rejection.js';
import { startOneNodeCluster, type OneNodeCluster } from '../support/redis-one-node-cluster.js';
import { testConfig, uniquePrefix } from '../support/redis.js';

const NODES = [{ name: 'pve1', template: 9001, isoStorage: 'proxy-seeds', bridge: 'vmbr1' }];
const POOL = { name: 'lan', bridge: 'vmbr1', cidr: '127.77.0.0/24', gateway: '127.77.0.1', first: '127.77.0.1', last: '127.77.0.3' };

describe('address pools on a Redis Cluster (SPEC 29, SPEC 25)', function () {
  let cluster: OneNodeCluster;
  let client: ProvisionerClient;
  before(async () => {
    cluster = await startOneNodeCluster();
  });
  after(async () => {
    await client.close();
    await cluster.close();
  });

  it('hands out the pool in one script per create, and refuses the exhausted pool', async () => {
    const prefix = uniquePrefix('pool-cluster');
    const config = testConfig(prefix, { redis: { clusterNodes: [cluster.node] }, proxmox: { nodes: NODES, networks: [POOL] } });
    client = createProvisionerClient({ redisUrl: config.redis.url, redis: config.redis, prefix, config });
    const answers = [await client.createVm({ name: 'cl-1' }), await client.createVm({ name: 'cl-2' })];
    expect(answers.map((a) => a.address)).to.deep.equal(['127.77.0.2', '127.77.0.3']);
    expect((await client.createVm({ name: 'cl-1' })).address, 'a repeat').to.equal('127.77.0.2');
    expect(await rejection(client.createVm({ name: 'cl-3' }))).to.be.instanceOf(PoolExhaustedError);
    expect((await client.getVm('cl-2'))?.address).to.equal('127.77.0.3');
  });
});
