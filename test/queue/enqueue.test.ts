// SPEC 1, 2, 6: the one door for enqueueing. It checks the stored data as
// the worker will, puts each job on the job table's queue and gives it an
// id of the table's shape (real Redis, a prefix of its own).
import { expect } from 'chai';
import { Worker } from 'bullmq';
import type { Job } from 'bullmq';
import { JOB_NAMES, JOB_TABLE, limitsFromConfig } from '../../src/job-table/schema.js';
import { createQueues } from '../../src/queue/queues.js';
import { jobDoor } from '../../src/queue/enqueue.js';
import type { JobDoor } from '../../src/queue/enqueue.js';
import { ValidationError } from '../../src/queue/producer-errors.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const createData = { name: 'door-c', uid: 'u1', cores: 1, memoryMiB: 512, diskGiB: 10, waitForAddress: false, generation: 2 };

describe('the enqueue door (SPEC 1, 2, 6)', () => {
  let h: Harness;
  let door: JobDoor;

  beforeEach(() => {
    h = createHarness('door');
    door = jobDoor(h.queues, limitsFromConfig(h.config));
  });

  afterEach(async () => {
    await h.close();
  });

  it('puts the system jobs on the system queue and the VM jobs on the vm queue', () => {
    expect(JOB_NAMES.filter((job) => JOB_TABLE[job].queue === 'system')).to.deep.equal(['health', 'reconcile', 'pool-refill']);
    expect(JOB_NAMES.filter((job) => JOB_TABLE[job].queue === 'vm')).to.deep.equal(['create', 'delete', 'check', 'stop']);
  });

  it("puts a lease's end at the head of its queue, retried at the base delay each time, not doubling (SPEC 31)", async () => {
    // The service's queues, with the jobs' retry options from config.
    const queues = createQueues(h.redis, h.prefix, h.config.jobs);
    try {
      const service = jobDoor(queues, limitsFromConfig(h.config));
      await service.add('check', { name: 'door-waiting' });
      const end = await service.add('delete', { name: 'door-e', uid: 'u1', generation: 3 }, { recorded: 'delete-door-e-3' }, 'next');
      expect(end.opts).to.include({ lifo: true });
      expect(end.opts.backoff).to.deep.equal({ type: 'fixed', delay: h.config.jobs.backoffMs });
      expect((await queues.vm.getWaiting()).map((job) => job.id)[0], 'first to run').to.equal('delete-door-e-3');
      const caller = await service.add('delete', { name: 'door-f', uid: 'u1', generation: 3 }, { recorded: 'delete-door-f-3' });
      expect(caller.opts.lifo).to.not.equal(true);
      expect(caller.opts.backoff).to.deep.include({ delay: h.config.jobs.backoffMs });
    } finally {
      await queues.close();
    }
  });

  it("serves a background job (a warm pool's refill) after every caller's job, even one added later (SPEC 30)", async () => {
    const member = await door.add('create', { ...createData, name: 'door-member' }, { recorded: 'create-door-member-2' }, 'background');
    expect(member.opts.priority).to.be.greaterThan(0);
    await door.add('create', { ...createData, name: 'door-caller' }, { recorded: 'create-door-caller-2' });
    const worker = new Worker(h.queues.vm.name, null, { connection: h.redis.duplicate(), prefix: h.queues.vm.opts.prefix ?? 'bull' });
    try {
      const first = (await worker.getNextJob('t1')) as Job | undefined;
      const second = (await worker.getNextJob('t2')) as Job | undefined;
      expect([first?.id, second?.id]).to.deep.equal(['create-door-caller-2', 'create-door-member-2']);
    } finally {
      await worker.close();
    }
  });

  it('gives each job its queue and its id shape', async () => {
    const check = await door.add('check', { name: 'door-1' });
    expect(check.id).to.match(new RegExp(`^check-door-1-${UUID}$`));
    expect(await h.queues.vm.getJob(check.id ?? '')).to.not.equal(undefined);

    const reconcile = await door.add('reconcile', { dryRun: true });
    expect(reconcile.id).to.match(new RegExp(`^reconcile-${UUID}$`));
    expect((await h.queues.system.getJob(reconcile.id ?? ''))?.data).to.deep.equal({ dryRun: true });

    const orphan = await door.add('delete', { name: 'door-2', uid: 'u9', generation: 4 });
    expect(orphan.id).to.match(new RegExp(`^delete-door-2-${UUID}$`));

    const recorded = await door.add('create', createData, { recorded: 'create-door-c-2' });
    expect(recorded.id).to.equal('create-door-c-2');
    const again = await door.add('create', createData, 'again');
    expect(again.id).to.match(new RegExp(`^create-door-c-2-${UUID}$`));
  });

  it('refuses data the worker would refuse, naming the fields, and adds nothing', async () => {
    const refused = await door.add('create', { ...createData, memoryMiB: 1, generation: undefined }).catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(ValidationError);
    expect((refused as ValidationError).fields.map((f) => f.field).sort()).to.deep.equal(['generation', 'memoryMiB']);
    expect(await h.queues.vm.count()).to.equal(0);
  });

  it("refuses a create carrying a step, which only the worker writes into a job's data (SPEC 1), and adds nothing", async () => {
    const refused = await door.add('create', { ...createData, step: 'address' }).catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(ValidationError);
    expect((refused as ValidationError).fields).to.deep.equal([{ field: 'step', message: 'is not a known field' }]);
    expect(await h.queues.vm.count()).to.equal(0);
  });

  it('refuses a recorded id that is not the intent id of the data it carries', async () => {
    const refused = await door.add('create', createData, { recorded: 'create-door-c-3' }).catch((err: unknown) => err);
    expect(String(refused)).to.include('is not the id of create door-c');
    expect(await h.queues.vm.count()).to.equal(0);
  });

  it('ensure adds a recorded job that is gone and keeps one that is there', async () => {
    await door.ensure('create', createData, 'create-door-c-2');
    const job = await h.queues.vm.getJob('create-door-c-2');
    expect(job?.data).to.include({ name: 'door-c', generation: 2 });
    await door.ensure('create', createData, 'create-door-c-2');
    expect(await h.queues.vm.count()).to.equal(1);
  });

  it('schedules a job under its own name on its queue', async () => {
    await door.schedule('health', 60_000, {});
    const schedulers = await h.queues.system.getJobSchedulers();
    expect(schedulers.map((s) => [s.key, s.name])).to.deep.equal([['health', 'health']]);
  });
});
