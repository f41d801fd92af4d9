// SPEC 31 against the simulator: a worker running the real provider, with
// webhooks to a receiver that checks each signature. A lease's delayed
// timer ends its VM (delete, or stop that keeps it recorded) as an
// ordinary job through the one door; vm.expiring and vm.expired arrive
// once each, signed; a renewal's newer version leaves the old timer
// nothing to do; the sweep fires a lease whose timer was lost; a newer
// create supersedes the expiry's job; a create of the same spec starts a
// stopped VM again. lease-core's accept (the record's lease, the timer's
// set) is stood in for by writing the lease and calling LeaseTimer.set.
import { expect } from 'chai';
import type { Lease } from '../../src/desired-state.js';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import { createMetrics, type Metrics } from '../../src/metrics.js';
import { jobDoor } from '../../src/queue/enqueue.js';
import { expireLease } from '../../src/queue/lease-expiry.js';
import { createLeaseTimer, type LeaseTimer } from '../../src/queue/lease-timer.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { keys } from '../../src/redis-keys.js';
import type { ReceivedRequest } from '../support/webhook-receiver.js';
import { eventually } from '../support/redis.js';
import { webhookWorld, type WebhookWorld } from '../webhooks/world.js';

interface SimVm {
  vmid: number;
  status: string;
  config: { name?: string };
}

describe('leases end their VMs (SPEC 31)', function () {
  this.timeout(120_000);
  let w: WebhookWorld;
  let registry: DesiredStateRegistry;
  let timer: LeaseTimer;
  let metrics: Metrics;

  beforeEach(async () => {
    w = await webhookWorld('lease-expiry');
    await w.receiver.listen();
    const h = w.harness;
    registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
    timer = createLeaseTimer({ door: jobDoor(h.queues, limitsFromConfig(h.config)), queue: h.queues.leases, redis: h.redis, prefix: h.prefix, warnSeconds: 1 });
    metrics = createMetrics();
  });
  afterEach(async () => {
    await w.close();
  });

  const simVms = async (): Promise<SimVm[]> => ((await (await fetch(`${w.sim.url}/_sim/state`)).json()) as { vms: SimVm[] }).vms;
  const simVm = async (name: string): Promise<SimVm | undefined> => (await simVms()).find((vm) => vm.config.name === name);
  const events = (name: string, event: string): ReceivedRequest[] => w.receiver.received.filter((r) => r.body.name === name && r.body.event === event);

  async function created(name: string): Promise<number> {
    const made = await w.harness.client.createVm({ name, uid: `uid-${name}`, node: 'pve1', cores: 1 });
    expect((await w.harness.client.waitForJob(made.jobId, { timeoutMs: 60_000 })).state).to.equal('completed');
    return made.generation ?? 0;
  }

  /** What lease-core's accept does: the lease on the record, then its timers. */
  async function lease(name: string, generation: number, lease: Lease, setTimer = true): Promise<void> {
    await w.harness.redis.hset(keys.desired(w.harness.prefix, name), 'lease', JSON.stringify(lease));
    if (setTimer) await timer.set(name, generation, lease);
  }

  const inMs = (ms: number): string => new Date(Date.now() + ms).toISOString();

  it('delete: vm.expiring before, then the VM deleted, vm.expired and vm.deleted, each once and signed', async () => {
    await w.startWorker(undefined, { leaseMetrics: metrics });
    const generation = await created('lease-del');
    expect((await simVm('lease-del'))?.status).to.equal('running');
    await lease('lease-del', generation, { expiresAt: inMs(2500), onExpiry: 'delete', version: 1 });
    const expired = await w.receiver.waitFor((r) => r.body.name === 'lease-del' && r.body.event === 'vm.expired', 60_000);
    await w.receiver.waitFor((r) => r.body.name === 'lease-del' && r.body.event === 'vm.deleted');
    const expiring = events('lease-del', 'vm.expiring');
    expect(expiring.map((r) => r.signatureValid)).to.deep.equal([true]);
    expect(expiring[0]?.body.result).to.deep.include({ version: 1, onExpiry: 'delete' });
    expect(expiring[0]?.at).to.be.below(expired.at);
    expect(expired.signatureValid).to.equal(true);
    expect(expired.body).to.deep.include({ job: 'delete', jobId: `delete-lease-del-${generation + 1}` });
    expect(expired.body.result).to.deep.include({ onExpiry: 'delete', deleted: true });
    expect(await simVm('lease-del')).to.equal(undefined);
    expect((await registry.get('lease-del'))?.state).to.equal('absent');
    expect(await metrics.leasesExpired.get()).to.have.nested.property('values[0].value', 1);
    expect((await metrics.leaseEndLag.get()).values.find((v) => v.metricName === 'pvep_lease_end_lag_seconds_count')?.value).to.equal(1);
    // Later deliveries (retries, a second timer) would show here: none.
    expect(events('lease-del', 'vm.expired')).to.have.length(1);
    expect(events('lease-del', 'vm.expiring')).to.have.length(1);
  });

  it('stop: the VM stopped and still recorded, Stopped; a create of the same spec starts it again', async () => {
    await w.startWorker();
    const generation = await created('lease-stop');
    await lease('lease-stop', generation, { expiresAt: inMs(300), onExpiry: 'stop', version: 1 });
    const expired = await w.receiver.waitFor((r) => r.body.name === 'lease-stop' && r.body.event === 'vm.expired', 60_000);
    expect(expired.signatureValid).to.equal(true);
    expect(expired.body).to.deep.include({ job: 'stop' });
    expect(expired.body.result).to.deep.include({ onExpiry: 'stop', stopped: true });
    expect((await simVm('lease-stop'))?.status).to.equal('stopped');
    const record = await eventually(async () => {
      const r = await registry.get('lease-stop');
      return r?.lastKnown?.state === 'Stopped' ? r : undefined;
    });
    expect(record).to.deep.include({ state: 'present', stopped: generation + 1 });

    const again = await w.harness.client.createVm({ name: 'lease-stop', node: 'pve1', cores: 1 });
    expect(again).to.deep.include({ existing: false, generation: generation + 2 });
    const view = await w.harness.client.waitForJob(again.jobId, { timeoutMs: 60_000 });
    expect(view.state).to.equal('completed');
    expect((await simVm('lease-stop'))?.status).to.equal('running');
    expect((await registry.get('lease-stop'))?.stopped).to.equal(undefined);
    expect(events('lease-stop', 'vm.expired')).to.have.length(1);
  });

  it('a renewal: the old version\'s timer, run anyway, does nothing; the VM lives', async () => {
    await w.startWorker();
    const generation = await created('lease-renew');
    await lease('lease-renew', generation, { expiresAt: inMs(600_000), onExpiry: 'delete', version: 1 });
    await lease('lease-renew', generation, { expiresAt: inMs(1_200_000), onExpiry: 'delete', version: 2 });
    expect(await w.harness.queues.leases.getJob(`lease-expiry-lease-renew-${generation}-1`)).to.equal(undefined);
    // The old timer runs anyway (a remove that lost a race): due, but of version 1.
    await w.harness.redis.hset(keys.desired(w.harness.prefix, 'lease-renew'), 'lease', JSON.stringify({ expiresAt: inMs(-1000), onExpiry: 'delete', version: 2 }));
    const door = jobDoor(w.harness.queues, limitsFromConfig(w.harness.config));
    const old = await door.later('lease-expiry', { name: 'lease-renew', generation, leaseVersion: 1 }, 0);
    const result = await eventually(async () => ((await old.isCompleted()) ? ((await w.harness.queues.leases.getJob(old.id ?? ''))?.returnvalue as unknown) : undefined));
    expect(result).to.deep.equal({ expired: false, why: 'renewed' });
    expect((await registry.get('lease-renew'))?.state).to.equal('present');
    expect((await simVm('lease-renew'))?.status).to.equal('running');
  });

  it('the sweep fires a lease past due whose timer was lost', async () => {
    await w.startWorker();
    const generation = await created('lease-lost');
    expect((await simVm('lease-lost'))?.status).to.equal('running');
    await lease('lease-lost', generation, { expiresAt: inMs(-5000), onExpiry: 'delete', version: 3 }, false);
    const door = jobDoor(w.harness.queues, limitsFromConfig(w.harness.config));
    const sweep = await door.add('reconcile', { dryRun: false });
    const report = await eventually(async () => ((await sweep.isCompleted()) ? ((await w.harness.queues.system.getJob(sweep.id ?? ''))?.returnvalue as { leases: { expired: { name: string; jobId: string; expiresAt: string }[] } }) : undefined), 60_000);
    expect(report.leases.expired).to.deep.equal([{ name: 'lease-lost', version: 3, generation, expiresAt: report.leases.expired[0]?.expiresAt, onExpiry: 'delete', jobId: `delete-lease-lost-${generation + 1}` }]);
    await w.receiver.waitFor((r) => r.body.name === 'lease-lost' && r.body.event === 'vm.expired', 60_000);
    expect(await simVm('lease-lost')).to.equal(undefined);
  });

  it('a newer create supersedes the expiry\'s job: the VM keeps running, no vm.expired', async () => {
    const worker = await w.startWorker();
    const generation = await created('lease-new');
    await worker.close(5000);
    await lease('lease-new', generation, { expiresAt: inMs(-10), onExpiry: 'stop', version: 1 }, false);
    const door = jobDoor(w.harness.queues, limitsFromConfig(w.harness.config));
    const outcome = await expireLease({ door, registry }, 'lease-new', 1);
    expect(outcome).to.deep.include({ kind: 'recorded', action: 'stop' });
    const newer = await w.harness.client.createVm({ name: 'lease-new', node: 'pve1', cores: 1 });
    await w.startWorker();
    expect((await w.harness.client.waitForJob(newer.jobId, { timeoutMs: 60_000 })).state).to.equal('completed');
    const stop = await w.harness.client.waitForJob(`stop-lease-new-${generation + 1}`, { timeoutMs: 60_000 });
    expect(stop.result).to.deep.include({ superseded: true });
    expect((await simVm('lease-new'))?.status).to.equal('running');
    expect(events('lease-new', 'vm.expired')).to.deep.equal([]);
  });
});
