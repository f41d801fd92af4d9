// SPEC 32 (issue 34) end to end: `all` in-process with two simulated
// clusters (sim.clusters 2: sim1 and sim2, each its own simulator, ports,
// VMIDs and state), driven over HTTP with its own Redis prefix. Creates
// are placed across both (most free memory in the last health, then the
// configured order), a named cluster is honoured, a repeat goes to its
// name's cluster, deletes and a sweep act per cluster, one uid gives two
// names on two clusters the same VMID without confusion, and a cluster
// out of reach is left alone: its names Unknown, creates going to the
// other, a sweep deleting and re-creating nothing of it.
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { jobDoor } from '../../src/queue/enqueue.js';
import { createQueues, type Queues } from '../../src/queue/queues.js';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import { vmidForUid } from '../../src/provider/vmid.js';
import type { ClusterHealth } from '../../src/queue/cluster-health.js';
import type { RunningSimulator } from '../../src/sim/index.js';
import { REDIS_URL, keyPrefix } from '../support/redis.js';
import { startServiceOnSim, type ServiceOnSim } from '../support/service-on-sim.js';
import { clustersInHealth, destroyBehindTheServicesBack, oursByName, plantCopy, uidOf, type SimVm } from '../support/cluster-sims.js';

/** Generous: on a loaded machine a clone, its boot and the agent's answer can take long. */
const DEADLINE_MS = 120_000;

interface Accepted {
  jobId: string;
  uid: string;
  existing: boolean;
  cluster?: string;
}
interface JobAnswer {
  state: string;
  data: { cluster?: string };
  result?: { vmid: number; node: string };
  failedReason?: string;
  logs: string[];
}
/** GET /v1/vms/:name as the several-clusters form answers it (SPEC 32). */
interface VmAnswer {
  name: string;
  state: 'present' | 'absent';
  uid?: string;
  cluster?: string;
  clusterAway?: boolean;
  lastKnown?: { state?: string; vmid?: number };
}

describe('two Proxmox clusters end to end on two simulators (SPEC 32)', function () {
  this.timeout(300_000);
  let service: ServiceOnSim;
  let redis: Redis;
  let sims: { sim1: RunningSimulator; sim2: RunningSimulator };

  const url = (path: string): string => service.url(path);
  const get = async <T>(path: string): Promise<{ status: number; body: T }> => {
    const res = await fetch(url(path), { headers: service.headers });
    return { status: res.status, body: (await res.json()) as T };
  };
  const post = (body: Record<string, unknown>): Promise<Response> => fetch(url('/v1/vms'), { method: 'POST', headers: service.headers, body: JSON.stringify(body) });
  const vm = async (name: string): Promise<VmAnswer> => {
    const { status, body } = await get<VmAnswer>(`/v1/vms/${name}`);
    expect(status, name).to.equal(200);
    return body;
  };

  async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
    const end = Date.now() + DEADLINE_MS;
    for (;;) {
      const found = await probe();
      if (found !== undefined) return found;
      if (Date.now() > end) throw new Error(`${what}: not within ${DEADLINE_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** The job once it has ended (the API's longest wait is 60 s, so asked again while it runs). */
  async function ended(jobId: string): Promise<JobAnswer> {
    for (;;) {
      const { body } = await get<JobAnswer>(`/v1/jobs/${jobId}?waitSeconds=60`);
      if (body.state === 'completed' || body.state === 'failed') return body;
    }
  }

  /** A create accepted (202) and run to its end, completed. */
  /** `status` 200 for a repeat of a create already accepted (SPEC 2). */
  async function created(body: Record<string, unknown>, status = 202): Promise<{ accepted: Accepted; job: JobAnswer }> {
    const res = await post({ waitForAddress: false, ...body });
    expect(res.status, JSON.stringify(body)).to.equal(status);
    const accepted = (await res.json()) as Accepted;
    const job = await ended(accepted.jobId);
    expect(job.state, `${JSON.stringify(body)}: ${job.failedReason ?? ''}\n${job.logs.join('\n')}`).to.equal('completed');
    return { accepted, job };
  }

  async function deleted(name: string): Promise<void> {
    // No body, so no content-type: an empty JSON body is refused (400).
    const res = await fetch(url(`/v1/vms/${name}`), { method: 'DELETE', headers: { authorization: service.headers.authorization ?? '' } });
    if (res.status !== 202) expect.fail(`delete ${name}: ${res.status} ${await res.text()}`);
    const job = await ended(((await res.json()) as Accepted).jobId);
    expect(job.state, `delete ${name}: ${job.failedReason ?? ''}`).to.equal('completed');
  }

  /** Each cluster's state from a health result whose check began after `after`: the first written after it, then the next. */
  async function healthAfter(after: number): Promise<ClusterHealth[]> {
    const read = (since: number) => () => clustersInHealth(redis, keyPrefix(service.prefix), service.config, since);
    await until('a health result', read(after));
    // The first one written after `after` may have read Proxmox before it.
    return until('the next health result', read(Date.now()));
  }

  const stateOf = (health: ClusterHealth[], name: string): ClusterHealth => {
    const found = health.find((cluster) => cluster.name === name);
    if (found === undefined) throw new Error(`cluster ${name} is not in the health result`);
    return found;
  };

  /** Our VMs of `name` on each cluster. */
  async function whereIs(name: string): Promise<{ sim1: SimVm[]; sim2: SimVm[] }> {
    return { sim1: (await oursByName(sims.sim1)).get(name) ?? [], sim2: (await oursByName(sims.sim2)).get(name) ?? [] };
  }

  /** A sweep now (reconcile, not a dry run): resolves once it completed. */
  async function sweep(): Promise<unknown> {
    const queues: Queues = createQueues(redis, service.prefix);
    try {
      const job = await jobDoor(queues, limitsFromConfig(service.config)).add('reconcile', { dryRun: false });
      const state = await until('the sweep', async () => {
        const now = await job.getState();
        return now === 'completed' || now === 'failed' ? now : undefined;
      });
      const done = await queues.system.getJob(job.id ?? '');
      expect(state, `the sweep: ${done?.failedReason ?? ''}`).to.equal('completed');
      return done?.returnvalue;
    } finally {
      await queues.vm.close();
      await queues.system.close();
    }
  }

  before(async () => {
    service = await startServiceOnSim('clusters', {
      overrides: {
        sim: { clusters: 2 },
        // Placement reads free memory from the last health: fresh every second.
        health: { everySeconds: 1 },
        // Sweeps only when a case runs one, with no grace: a VM planted now is judged now.
        reconciler: { everySeconds: 3600, graceSeconds: 0 },
      },
    });
    const { sim1, sim2 } = Object.fromEntries(service.running.sims) as Record<string, RunningSimulator | undefined>;
    if (sim1 === undefined || sim2 === undefined) throw new Error(`two simulators, sim1 and sim2; got ${[...service.running.sims.keys()].join(', ')}`);
    sims = { sim1, sim2 };
    redis = new Redis(REDIS_URL);
  });

  after(async () => {
    // A failed case may have left sim2 offline: its close works either way.
    redis?.disconnect();
    await service?.close();
  });

  it('starts a simulator per cluster, each on ports of its own, and the first is `sim`', () => {
    expect([...service.running.sims.keys()]).to.deep.equal(['sim1', 'sim2']);
    expect(service.running.sim).to.equal(sims.sim1);
    expect(sims.sim1.port).not.to.equal(sims.sim2.port);
  });

  it('places creates across both: the most free memory in the last health, the configured order on a tie', async () => {
    const start = await healthAfter(0);
    expect(start.map((c) => [c.name, c.state])).to.deep.equal([['sim1', 'up'], ['sim2', 'up']]);
    expect(stateOf(start, 'sim1').freeMemoryMiB, 'two fresh simulators have the same free memory').to.equal(stateOf(start, 'sim2').freeMemoryMiB);

    await created({ name: 'placed-a' });
    expect((await vm('placed-a')).cluster, 'a tie: the first cluster').to.equal('sim1');
    // Its running VM took memory on sim1: once the health has seen it, sim2 has the most free.
    const after = await healthAfter(Date.now());
    expect(stateOf(after, 'sim1').freeMemoryMiB).to.be.below(stateOf(after, 'sim2').freeMemoryMiB);
    await created({ name: 'placed-b' });
    expect((await vm('placed-b')).cluster).to.equal('sim2');

    expect((await whereIs('placed-a')).sim1.map((v) => v.status)).to.deep.equal(['running']);
    expect((await whereIs('placed-a')).sim2).to.deep.equal([]);
    expect((await whereIs('placed-b')).sim2.map((v) => v.status)).to.deep.equal(['running']);
    expect((await whereIs('placed-b')).sim1).to.deep.equal([]);
    // The listing filters by cluster.
    const listed = await get<{ vms: VmAnswer[] }>('/v1/vms?cluster=sim2');
    expect(listed.status).to.equal(200);
    expect(listed.body.vms.map((v) => v.name)).to.deep.equal(['placed-b']);
  });

  it('honours a named cluster over the placement\'s choice', async () => {
    // One VM each: a tie, which placement would give sim1.
    await healthAfter(Date.now());
    const { accepted, job } = await created({ name: 'named', cluster: 'sim2' });
    expect(accepted.cluster, 'the answer names the cluster').to.equal('sim2');
    expect(job.data.cluster).to.equal('sim2');
    expect((await vm('named')).cluster).to.equal('sim2');
    const where = await whereIs('named');
    expect(where.sim1).to.deep.equal([]);
    expect(where.sim2.map((v) => v.vmid)).to.deep.equal([job.result?.vmid]);
  });

  it('sends a repeat of a create to its name\'s cluster, and refuses naming another (409 naming cluster)', async () => {
    // sim2 now has two VMs: placement would pick sim1 for a new name.
    await healthAfter(Date.now());
    const before = await whereIs('named');
    const { accepted } = await created({ name: 'named' }, 200);
    expect(accepted.existing).to.equal(true);
    expect(accepted.cluster, "a repeat's answer names the name's cluster").to.equal('sim2');
    expect((await vm('named')).cluster).to.equal('sim2');
    const after = await whereIs('named');
    expect(after.sim1).to.deep.equal([]);
    expect(after.sim2.map((v) => v.vmid)).to.deep.equal(before.sim2.map((v) => v.vmid));

    const other = await post({ name: 'named', cluster: 'sim1', waitForAddress: false });
    expect(other.status).to.equal(409);
    expect(((await other.json()) as { fields: { field: string }[] }).fields.map((f) => f.field)).to.deep.equal(['cluster']);
    expect((await whereIs('named')).sim1).to.deep.equal([]);
  });

  it('gives two names of one uid on two clusters the same VMID, and keeps them apart', async () => {
    const uid = `twin-${randomUUID()}`;
    const vmid = vmidForUid(uid, service.config.proxmox.vmidRange);
    const east = await created({ name: 'twin-east', uid, cluster: 'sim1' });
    const west = await created({ name: 'twin-west', uid, cluster: 'sim2' });
    expect(east.job.result?.vmid).to.equal(vmid);
    expect(west.job.result?.vmid, 'the same VMID on the other cluster').to.equal(vmid);
    expect((await vm('twin-east')).cluster).to.equal('sim1');
    expect((await vm('twin-west')).cluster).to.equal('sim2');
    const twins = await whereIs('twin-east');
    expect(twins.sim1.map((v) => [v.vmid, v.status])).to.deep.equal([[vmid, 'running']]);
    expect((await whereIs('twin-west')).sim2.map((v) => [v.vmid, v.status])).to.deep.equal([[vmid, 'running']]);

    // A repeat finds its own cluster's VM at that VMID, not the other's.
    await created({ name: 'twin-east', uid }, 200);
    expect((await vm('twin-east')).lastKnown?.vmid).to.equal(vmid);
    expect((await whereIs('twin-east')).sim1.map((v) => v.vmid)).to.deep.equal([vmid]);
    expect((await whereIs('twin-east')).sim2).to.deep.equal([]);

    await deleted('twin-east');
    expect((await whereIs('twin-east')).sim1, 'gone from sim1').to.deep.equal([]);
    const left = (await whereIs('twin-west')).sim2;
    expect(left.map((v) => [v.vmid, v.status, uidOf(v)]), 'the other cluster\'s VM at that VMID untouched').to.deep.equal([[vmid, 'running', uid]]);
    expect((await vm('twin-east')).state).to.equal('absent');
    expect((await vm('twin-west')).state).to.equal('present');
  });

  it('deletes on the name\'s cluster only', async () => {
    const sim1Before = [...(await oursByName(sims.sim1)).keys()].sort();
    await deleted('placed-b');
    expect((await whereIs('placed-b')).sim2).to.deep.equal([]);
    expect([...(await oursByName(sims.sim1)).keys()].sort(), 'sim1 untouched').to.deep.equal(sim1Before);
  });

  it('sweeps each cluster for its own names: re-creates a missing VM and deletes an orphan there, leaves another cluster\'s VM alone', async () => {
    const tokenFile = service.config.proxmox.tokenFile;
    const [named] = (await whereIs('named')).sim2;
    const [twinWest] = (await whereIs('twin-west')).sim2;
    const [placedA] = (await whereIs('placed-a')).sim1;
    if (named === undefined || twinWest === undefined || placedA === undefined) throw new Error('the earlier cases\' VMs');
    // An orphan on sim2: its name is sim2's, its uid not the record's.
    await plantCopy(sims.sim2, named, { vmid: 7001, node: named.node, uid: 'stale-uid' });
    // On sim1, a copy of a sim2 VM (its mark and tags say sim2): not sim1's to judge, nor sim2's to see.
    await plantCopy(sims.sim1, twinWest, { vmid: 7002, node: 'pve1', uid: 'stale-uid' });
    // twin-west's VM gone behind the service's back: missing on sim2.
    await destroyBehindTheServicesBack(sims.sim2, tokenFile, twinWest);

    await sweep();
    const recreated = await until('twin-west made again on sim2', async () => {
      const [again] = (await whereIs('twin-west')).sim2;
      return again?.status === 'running' ? again : undefined;
    });
    expect(uidOf(recreated)).to.equal(uidOf(twinWest));
    await until('the orphan on sim2 deleted', async () => ((await whereIs('named')).sim2.some((v) => v.vmid === 7001) ? undefined : true));
    expect((await whereIs('named')).sim2.map((v) => v.vmid), 'the record\'s VM kept').to.deep.equal([named.vmid]);
    // The sweep's own jobs are done: nothing was made for twin-west on sim1, and the copy there stands.
    const onSim1 = (await whereIs('twin-west')).sim1;
    expect(onSim1.map((v) => v.vmid)).to.deep.equal([7002]);
    expect((await whereIs('placed-a')).sim1.map((v) => v.vmid), 'sim1\'s own name untouched').to.deep.equal([placedA.vmid]);
  });

  it('a cluster out of reach: its names Unknown, creates placed on the other, a sweep deletes and re-creates nothing of it, and all is there once it is back', async () => {
    // A large VM on sim1 first: the last health then has sim2 with the most free memory, which placement would pick.
    await created({ name: 'heavy', cluster: 'sim1', memoryMiB: 16_384 });
    const before = await healthAfter(Date.now());
    expect(stateOf(before, 'sim2').freeMemoryMiB).to.be.above(stateOf(before, 'sim1').freeMemoryMiB);
    const sim2Before = [...(await oursByName(sims.sim2)).entries()].map(([name, vms]) => [name, vms.map((v) => v.vmid)]);
    const offlineAt = Date.now();
    await sims.sim2.offline();
    try {
      const health = await healthAfter(offlineAt);
      expect(stateOf(health, 'sim2').state).to.equal('away');
      expect(stateOf(health, 'sim1').state).to.equal('up');
      const named = await vm('named');
      expect(named).to.include({ cluster: 'sim2', clusterAway: true });
      expect(named.lastKnown?.state).to.equal('Unknown');

      // sim2 is away: a create naming no cluster goes to sim1, though sim2 had the most free memory.
      await created({ name: 'while-away' });
      expect((await vm('while-away')).cluster).to.equal('sim1');
      await sweep();
      expect(((await oursByName(sims.sim1)).get('while-away') ?? []).map((v) => v.status)).to.deep.equal(['running']);
      // sim2 refuses connections while away: only sim1 is asked.
      const onSim1 = await oursByName(sims.sim1);
      for (const [name] of sim2Before) expect((onSim1.get(String(name)) ?? []).filter((v) => v.vmid !== 7002), `${String(name)} made on sim1`).to.deep.equal([]);
      expect((await vm('named')).state, 'still present').to.equal('present');
    } finally {
      await sims.sim2.online();
    }
    const sim2After = [...(await oursByName(sims.sim2)).entries()].map(([name, vms]) => [name, vms.map((v) => v.vmid)]);
    expect(sim2After, 'sim2 as it was: nothing deleted or made again').to.deep.equal(sim2Before);
    const health = await healthAfter(Date.now());
    expect(stateOf(health, 'sim2').state).to.equal('up');
    const named = await vm('named');
    expect(named.clusterAway ?? false).to.equal(false);
  });
});
