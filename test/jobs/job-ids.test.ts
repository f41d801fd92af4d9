// SPEC 2, 6: every job id shape, and the registry's Lua building an
// intent's id from the same prefix (real Redis, a prefix of its own).
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { intentJobId, intentJobIdPrefix, isJobIdShape, isScheduledJobId, nameJobId, ownJobId, repeatedIntentJobId, schedulerId } from '../../src/job-table/job-ids.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { deletePrefix, keyPrefix, newRedis, uniquePrefix } from '../support/redis.js';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

describe('job ids (SPEC 2, 6)', () => {
  it('names a recorded intent by job, name and generation', () => {
    expect(intentJobIdPrefix('create', 'web-1')).to.equal('create-web-1-');
    expect(intentJobId('create', 'web-1', 3)).to.equal('create-web-1-3');
    expect(intentJobId('delete', 'web-1', 4)).to.equal('delete-web-1-4');
  });

  it('gives a repeated intent, a name job and a job of no name a fresh uuid each time', () => {
    expect(repeatedIntentJobId('create', 'db', 5)).to.match(new RegExp(`^create-db-5-${UUID}$`));
    expect(nameJobId('check', 'db')).to.match(new RegExp(`^check-db-${UUID}$`));
    expect(nameJobId('delete', 'db')).to.match(new RegExp(`^delete-db-${UUID}$`));
    expect(ownJobId('reconcile')).to.match(new RegExp(`^reconcile-${UUID}$`));
    expect(nameJobId('check', 'db')).to.not.equal(nameJobId('check', 'db'));
    expect(repeatedIntentJobId('create', 'db', 5)).to.not.equal(repeatedIntentJobId('create', 'db', 5));
  });

  it('names a schedule after its job', () => {
    expect(schedulerId('health')).to.equal('health');
    expect(schedulerId('reconcile')).to.equal('reconcile');
  });

  it('tells every id it gives, a 63-character name included, from what it never gives (SPEC 24)', () => {
    const longest = 'n'.repeat(63);
    for (const name of ['a', 'web-1', longest]) {
      for (const id of [intentJobId('create', name, 1), intentJobId('delete', name, 12), repeatedIntentJobId('create', name, 5), nameJobId('check', name), nameJobId('delete', name)]) {
        expect(isJobIdShape(id), id).to.equal(true);
      }
    }
    for (const job of ['health', 'reconcile']) {
      expect(isJobIdShape(ownJobId(job)), job).to.equal(true);
      expect(isJobIdShape(`repeat:${schedulerId(job)}:1733100000000`), job).to.equal(true);
    }
    const never = ['id', 'events', 'meta', 'metrics:completed:data', 'repeat:reconcile', 'create-a-1:logs', '1', 'check-db-5', 'reconcile-1', `check-${longest}n-${ownJobId('x').slice(2)}`, 'CREATE-a-1', 'frob-a-1', ''];
    for (const id of never) expect(isJobIdShape(id), id).to.equal(false);
  });

  it('tells a job its schedule added from one added by hand (SPEC 5)', () => {
    expect(isScheduledJobId(`repeat:${schedulerId('reconcile')}:1733100000000`)).to.equal(true);
    expect(isScheduledJobId(ownJobId('reconcile'))).to.equal(false);
    expect(isScheduledJobId('repeat:reconcile')).to.equal(false);
  });

  describe('the registry Lua (real Redis)', () => {
    const prefix = uniquePrefix('job-ids');
    let redis: Redis;

    before(() => {
      redis = newRedis();
    });

    after(async () => {
      await deletePrefix(redis, prefix);
      redis.disconnect();
    });

    it('records the intent ids intentJobId gives', async () => {
      const registry = new DesiredStateRegistry(redis, keyPrefix(prefix), 60);
      const created = await registry.recordPresent('ids-1', 'u1', { name: 'ids-1', uid: 'u1' });
      if (created.kind === 'conflict') throw new Error('unexpected conflict');
      expect(created.jobId).to.equal(intentJobId('create', 'ids-1', created.generation));
      const deleted = await registry.recordAbsent('ids-1', undefined);
      if (deleted.kind === 'foreign') throw new Error('unexpected foreign delete');
      expect(deleted.jobId).to.equal(intentJobId('delete', 'ids-1', deleted.generation));
      const again = await registry.recordPresent('ids-1', 'u2', { name: 'ids-1', uid: 'u2' });
      expect(again).to.include({ kind: 'recorded', generation: 3, jobId: 'create-ids-1-3' });
    });
  });
});
