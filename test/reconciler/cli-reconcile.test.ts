// SPEC 5, 6: `pve-provisioner reconcile [--dry-run] [--wait] [--json]`
// adds a reconcile job to the system queue; with --wait it prints the
// sweep's report; with --json stdout is one JSON document. The worker here runs the real reconcile runner over the seam fake.
import { expect } from 'chai';
import { UnrecoverableError, Worker } from 'bullmq';
import type { Job } from 'bullmq';
import { run } from '../../src/cli/reconcile.js';
import { silentLogger } from '../../src/log.js';
import { startWorkerService } from '../../src/worker/service.js';
import { SYSTEM_QUEUE } from '../../src/queue/queues.js';
import type { SweepReport } from '../../src/reconciler/report.js';
import { proxmoxWorld } from './proxmox-world.js';
import type { ProxmoxWorld } from './proxmox-world.js';

function sink(): { text: string; write(t: string): void } {
  return {
    text: '',
    write(t: string) {
      this.text += t;
    },
  };
}

describe('pve-provisioner reconcile (SPEC 5, 6, real Redis)', () => {
  let w: ProxmoxWorld;
  let worker: Worker | undefined;

  beforeEach(() => {
    w = proxmoxWorld();
  });

  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    await w.queues.system.obliterate({ force: true });
    await w.close();
  });

  const serve = (processor: (job: Job) => Promise<unknown>): void => {
    worker = new Worker(SYSTEM_QUEUE, processor, { connection: w.redis.duplicate(), prefix: w.prefix });
  };

  it('refuses an unknown flag with exit 2 and the reason, and enqueues nothing', async () => {
    const out = sink();
    const err = sink();
    expect(await run(['--dryrun'], { config: w.config, stdout: out, stderr: err })).to.equal(2);
    expect(err.text).to.match(/^pve-provisioner reconcile: unknown flag --dryrun\n/);
    expect(await w.queues.system.getJobCountByTypes('waiting')).to.equal(0);
  });

  it('exits 1 naming the address when Redis cannot be reached', async () => {
    const err = sink();
    const config = { ...w.config, redis: { ...w.config.redis, url: 'redis://127.0.0.1:1' } };
    expect(await run([], { config, stdout: sink(), stderr: err })).to.equal(1);
    expect(err.text).to.match(/Redis at 127\.0\.0\.1:1 is not reachable/);
  });

  it('adds a reconcile job with dryRun and prints its id', async () => {
    const out = sink();
    expect(await run(['--dry-run'], { config: w.config, stdout: out, stderr: sink() })).to.equal(0);
    const job = (await w.queues.system.getJob(out.text.trim())) as Job;
    expect([job.name, job.data]).to.deep.equal(['reconcile', { dryRun: true }]);
  });

  it('with --wait prints the report of the sweep the worker ran', async () => {
    await w.present('db', 'uid-db');
    serve((job) => w.sweep((job.data as { dryRun: boolean }).dryRun));
    const out = sink();
    expect(await run(['--wait', '--dry-run'], { config: w.config, stdout: out, stderr: sink() })).to.equal(0);
    const [, ...json] = out.text.split('\n');
    const report = JSON.parse(json.join('\n')) as SweepReport;
    expect(report.dryRun).to.equal(true);
    expect(report.missing.reenqueued.map((m) => m.name)).to.deep.equal(['db']);
    expect(await w.added()).to.deep.equal([]);
  });

  it('with --wait prints the report of a sweep run by the worker service itself', async () => {
    await w.present('db', 'uid-db');
    const config = { ...w.config, reconciler: { ...w.config.reconciler, graceSeconds: 0 } };
    const service = await startWorkerService({ config, provider: w.h.provider, logger: silentLogger(), schedule: false });
    try {
      const out = sink();
      expect(await run(['--wait', '--dry-run'], { config, stdout: out, stderr: sink() })).to.equal(0);
      const [, ...json] = out.text.split('\n');
      const report = JSON.parse(json.join('\n')) as SweepReport;
      expect([report.dryRun, report.missing.reenqueued.map((m) => m.name)]).to.deep.equal([true, ['db']]);
    } finally {
      await service.close();
    }
  });

  it('with --wait --json prints one JSON document, the job id and the report inside it (for jq)', async () => {
    await w.present('db', 'uid-db');
    serve((job) => w.sweep((job.data as { dryRun: boolean }).dryRun));
    const out = sink();
    expect(await run(['--wait', '--dry-run', '--json'], { config: w.config, stdout: out, stderr: sink() })).to.equal(0);
    const printed = JSON.parse(out.text) as { id: string; state: string; result: SweepReport };
    expect(printed.state).to.equal('completed');
    expect((await w.queues.system.getJob(printed.id))?.name).to.equal('reconcile');
    expect([printed.result.dryRun, printed.result.missing.reenqueued.map((m) => m.name)]).to.deep.equal([true, ['db']]);
  });

  it('with --json and no --wait prints one JSON document holding the job id; a failed job is one document too', async () => {
    const enqueued = sink();
    expect(await run(['--dry-run', '--json'], { config: w.config, stdout: enqueued, stderr: sink() })).to.equal(0);
    const { id } = JSON.parse(enqueued.text) as { id: string };
    expect((await w.queues.system.getJob(id))?.data).to.deep.equal({ dryRun: true });

    serve(() => Promise.reject(new UnrecoverableError('Proxmox unreachable')));
    const failed = sink();
    expect(await run(['--wait', '--json'], { config: w.config, stdout: failed, stderr: sink() })).to.equal(1);
    expect(JSON.parse(failed.text)).to.deep.include({ state: 'failed', failedReason: 'Proxmox unreachable' });
  });

  it('a reconcile by hand lists the seed storages whatever the schedule, and --wait prints the seeds only the listing found (issue 25)', async () => {
    const config = { ...w.config, reconciler: { ...w.config.reconciler, graceSeconds: 0, seedListingEvery: 1000 } };
    const service = await startWorkerService({ config, provider: w.h.provider, logger: silentLogger(), schedule: false });
    const reportOf = async (args: string[]): Promise<SweepReport> => {
      const out = sink();
      expect(await run(['--wait', ...args], { config, stdout: out, stderr: sink() })).to.equal(0);
      const [, ...json] = out.text.split('\n');
      return JSON.parse(json.join('\n')) as SweepReport;
    };
    try {
      // The worker process's first sweep lists anyway; the seed comes after it.
      await reportOf([]);
      await w.tombstone('old', 'uid-old');
      w.seed('old');
      const dry = await reportOf(['--dry-run']);
      expect(dry.seeds.storagesListed).to.equal(true);
      expect(dry.seeds.foundByListing.map((s) => s.name)).to.deep.equal(['old']);
      expect(dry.seeds.deleted.map((s) => s.name)).to.deep.equal(['old']);
      const real = await reportOf([]);
      expect(real.seeds.deleted.map((s) => s.name)).to.deep.equal(['old']);
      expect(w.seedsLeft()).to.deep.equal([]);
    } finally {
      await service.close();
    }
  });

  it('with --wait exits 1 with the reason when the job fails', async () => {
    serve(() => Promise.reject(new UnrecoverableError('Proxmox unreachable')));
    const err = sink();
    expect(await run(['--wait'], { config: w.config, stdout: sink(), stderr: err })).to.equal(1);
    expect(err.text).to.match(/failed: Proxmox unreachable/);
  });

  it('with --wait exits 1 when no worker finishes the job in time', async () => {
    const err = sink();
    expect(await run(['--wait', '--timeout', '1'], { config: w.config, stdout: sink(), stderr: err })).to.equal(1);
    expect(err.text).to.match(/still waiting after 1 s/);
  });
});
