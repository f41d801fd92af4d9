// SPEC 34 with SPEC 30 (issue 33): a warm pool's VMs are no tenant's while
// idle (the refill's creates take no hold), and a claimed one counts for
// the tenant whose create claimed it, like a VM cloned for it: the claim
// and the hold are taken in the accept's one script, and a quota that is
// full refuses the claim before any member leaves the idle set.
import { expect } from 'chai';
import { QuotaExceededError } from '../../src/client.js';
import { validateJobData } from '../../src/job-table/schema.js';
import { acceptCreate } from '../../src/queue/intent.js';
import { keys } from '../../src/redis-keys.js';
import type { Tenant } from '../../src/tenants/types.js';
import { readUsage } from '../../src/tenants/usage-read.js';
import { createHarness, type Harness } from '../support/harness.js';
import { poolWorld, type PoolWorld } from '../support/pool-members.js';

const NODES = [{ name: 'pve1', isoStorage: 'proxy-seeds', bridge: 'vmbr1' }];
const IMAGES = [{ name: 'ubuntu', templates: { pve1: 9001 }, user: 'ubuntu' }];
const LAN = { name: 'lan', bridge: 'vmbr1', cidr: '127.77.0.0/24', gateway: '127.77.0.1' };
const ACME: Tenant = { name: 'acme', scope: 'write', quotas: { vms: 1 } };

describe("a claimed pool VM counts for the claimer's tenant (SPEC 34, SPEC 30)", () => {
  let h: Harness;
  let world: PoolWorld;
  beforeEach(() => {
    h = createHarness('tenant-claim', { config: { proxmox: { nodes: NODES, images: IMAGES, networks: [LAN] }, pools: [{ name: 'web', minIdle: 2 }] } });
    world = poolWorld(h.redis, h.prefix, h.config);
  });
  afterEach(async () => {
    await world.queues.close();
    await h.close();
  });

  const create = (fields: Record<string, unknown>) => {
    const checked = validateJobData('create', fields, world.writers.limits);
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    return acceptCreate(world.writers, checked.value, { tenant: ACME });
  };

  it('idle members hold nothing; a claim takes the hold of its create; a full quota refuses a second claim and leaves the member idle', async () => {
    const web = h.config.pools[0];
    if (web === undefined) throw new Error('no pool');
    await world.idleMember(web, 100401, 'pve1');
    await world.idleMember(web, 100402, 'pve1');
    expect(await h.redis.hlen(keys.tenantHolds(h.prefix))).to.equal(0);
    const claimed = await create({ name: 'acme-1', uid: 'ua1' });
    expect(claimed.origin).to.equal('pool');
    expect(await readUsage(h.redis, h.prefix, 'acme')).to.deep.include({ vms: 1, cores: web.cores, memoryMiB: web.memoryMiB, diskGiB: web.diskGiB });
    expect(await h.redis.hexists(keys.tenantHolds(h.prefix), 'acme-1 ua1')).to.equal(1);
    const refused = await create({ name: 'acme-2' }).catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(QuotaExceededError).and.include({ quota: 'vms', use: 1, limit: 1 });
    expect(await h.redis.zcard(keys.poolIdle(h.prefix, 'web'))).to.equal(1);
  });
});
