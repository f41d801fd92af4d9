// SPEC 31: a name's lease fields stay consistent through every script that
// writes them (the create's accept, a renewal, the expiry, a delete): the
// lease index (keys.leases) holds exactly the live leases (present, not
// expired) at their expiry, the recorded timer ids follow the live lease's
// version and are forgotten with the name, `leaseTerms` lives with a
// present name, and `leaseVersion` is never behind the lease. Checked after
// each step of one name's life, through the producer library and the real
// timers, so a script that forgets one of them fails here.
import { expect } from 'chai';
import type { DesiredRecord } from '../../src/desired-state.js';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import { LeaseExpiredError } from '../../src/client.js';
import { jobDoor } from '../../src/queue/enqueue.js';
import { expireLease } from '../../src/queue/lease-expiry.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { keys } from '../../src/redis-keys.js';
import { createHarness, type Harness } from '../support/harness.js';

const NAME = 'vm-life';
const LATER = (): Date => new Date(Date.now() + 30 * 24 * 3600_000);

describe('a lease\'s fields stay consistent through a name\'s life (SPEC 31)', function () {
  this.timeout(20_000);
  let h: Harness;
  let registry: DesiredStateRegistry;

  beforeEach(() => {
    h = createHarness('lease-consistency');
    registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
  });
  afterEach(async () => {
    await h.close();
  });

  /** Asserts the invariants; answers the record. */
  async function consistent(step: string): Promise<DesiredRecord | undefined> {
    const record = await registry.get(NAME);
    const [score, timersJson, terms, versionText] = await Promise.all([
      h.redis.zscore(keys.leases(h.prefix), NAME),
      h.redis.hget(keys.leaseTimers(h.prefix), NAME),
      h.redis.hget(keys.desired(h.prefix, NAME), 'leaseTerms'),
      h.redis.hget(keys.desired(h.prefix, NAME), 'leaseVersion'),
    ]);
    const live = record?.state === 'present' && record.lease !== undefined && record.lease.expiredAt === undefined ? record.lease : undefined;
    expect(score === null ? undefined : Number(score), `${step}: the index holds the live lease at its expiry`).to.equal(live && Date.parse(live.expiresAt));
    if (live !== undefined) {
      expect((JSON.parse(timersJson ?? '{}') as { version?: number }).version, `${step}: the timers are the live version's`).to.equal(live.version);
    }
    if (record?.state !== 'present') {
      expect(record?.lease, `${step}: an absent name has no lease`).to.equal(undefined);
      expect(terms, `${step}: nor lease terms`).to.equal(null);
      expect(timersJson, `${step}: nor recorded timers`).to.equal(null);
    } else expect(terms, `${step}: a present name has its create's lease terms`).to.not.equal(null);
    if (record?.lease !== undefined) expect(Number(versionText), `${step}: leaseVersion is never behind the lease`).to.be.at.least(record.lease.version);
    if (record?.stopped !== undefined) expect(record.lease?.expiredAt, `${step}: a stopped name's lease is the expired one`).to.be.a('string');
    return record;
  }

  const expire = async (version: number) => expireLease({ door: jobDoor(h.queues, limitsFromConfig(h.config)), registry, now: LATER }, NAME, version);

  it('create, repeat, renew, change in place, stop, renewal refused, create again, move, expire as a delete, create, delete', async () => {
    await h.client.createVm({ name: NAME, uid: 'u1', cores: 2, ttlSeconds: 3600, onExpiry: 'stop' });
    expect((await consistent('created'))?.lease?.version).to.equal(1);
    await h.client.createVm({ name: NAME, uid: 'u1', cores: 2, ttlSeconds: 3600, onExpiry: 'stop' });
    expect((await consistent('repeated'))?.lease?.version).to.equal(1);
    await h.client.renewLease(NAME, { ttlSeconds: 7200 });
    expect((await consistent('renewed'))?.lease?.version).to.equal(2);
    await h.client.createVm({ name: NAME, uid: 'u1', cores: 4, ttlSeconds: 3600, onExpiry: 'stop' });
    expect((await consistent('changed in place'))?.lease?.version).to.equal(2);

    expect(await expire(2)).to.deep.include({ kind: 'recorded', action: 'stop' });
    const stopped = await consistent('stopped');
    expect(stopped?.stopped).to.equal(stopped?.generation);
    const refused = await h.client.renewLease(NAME, { ttlSeconds: 600 }).then(
      () => expect.fail('a renewal of a lease that stopped its VM is refused'),
      (err: unknown) => err,
    );
    expect(refused).to.be.instanceOf(LeaseExpiredError);
    expect(await registry.get(NAME)).to.deep.equal(stopped);
    await consistent('renewal refused');

    // The terms of the create before the stop: the expired lease is not kept as a repeat's would be.
    await h.client.createVm({ name: NAME, uid: 'u1', cores: 4, ttlSeconds: 3600, onExpiry: 'stop' });
    const started = await consistent('created again');
    expect(started?.stopped).to.equal(undefined);
    expect(started?.lease).to.deep.include({ version: 3, onExpiry: 'stop' });
    await h.client.createVm({ name: NAME, uid: 'u1', cores: 4, ttlSeconds: 3600, onExpiry: 'delete' });
    expect((await consistent('onExpiry moved'))?.lease).to.deep.include({ version: 4, onExpiry: 'delete', expiresAt: started?.lease?.expiresAt });

    expect(await expire(4)).to.deep.include({ kind: 'recorded', action: 'delete' });
    expect((await consistent('expired as a delete'))?.state).to.equal('absent');

    await h.client.createVm({ name: NAME, uid: 'u2', cores: 2, ttlSeconds: 0 });
    expect((await consistent('created without a lease'))?.lease).to.equal(undefined);
    await h.client.createVm({ name: NAME, uid: 'u2', cores: 2, ttlSeconds: 60 });
    expect((await consistent('given a lease'))?.lease?.expiresAt).to.be.a('string');
    await h.client.deleteVm({ name: NAME });
    expect((await consistent('deleted'))?.state).to.equal('absent');
  });
});
