// SPEC 30 (issue 32) end to end: `all` in-process on the simulator
// (startAll, real sockets, its own Redis prefix), driven over HTTP, the
// whole warm-pool loop: the refill fills the pool; a create of its shape
// takes an idle member at the door, renamed, its seed ejected and the
// create's keys written through the guest agent, and the pool refills; a
// create with userData, or asking pool false, goes cold; a restart with
// the pool's shape changed drains the old members and makes new ones; the
// sweep keeps members and the claimed VM and deletes a pool VM no record
// knows; a delete of the claimed name removes its VM, and the sweep the
// member's seed; a claim whose VM is gone goes cold; a claim for a name
// whose earlier VM is still there (its delete superseded) goes cold and
// leaves one VM; a pool taken out of config drains.
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { parseMark } from '../../src/provider/mark.js';
import { keys } from '../../src/redis-keys.js';
import { jobDoor } from '../../src/queue/enqueue.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { createQueues, type Queues } from '../../src/queue/queues.js';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import type { SweepReport } from '../../src/reconciler/report.js';
import { parseSamples, valueOf } from '../support/prometheus-scrape.js';
import { REDIS_URL, keyPrefix } from '../support/redis.js';
import { startServiceOnSim, type ServiceOnSim } from '../support/service-on-sim.js';
import { fixtureKey } from '../support/ssh-keys.js';

const IMAGES = [{ name: 'debian', templates: { pve1: 9001, pve2: 9002 }, user: 'debian' }];
const SHAPE = { cores: 1, memoryMiB: 1024, diskGiB: 10 };
// maxIdle = minIdle: the refill's target (minIdle plus recent demand, at most maxIdle) stays at minIdle, so each case sees minIdle idle.
const POOL = { name: 'small', ...SHAPE, minIdle: 2, maxIdle: 2 };
/** The same pool after its shape changed (cores): its members of the old shape drain. */
const RESHAPED = { ...POOL, cores: 2 };
const MEMBER_RE = /^pvep-pool-small-\d+$/;
const KEYS = [fixtureKey('ed25519.pub'), fixtureKey('rsa-2048.pub')];
/** Generous: on a loaded machine a member's clone, boot and agent wait can take long. */
const DEADLINE_MS = 120_000;

interface SimVm {
  vmid: number;
  node: string;
  status: string;
  config: Record<string, string | number>;
}
interface SimState {
  nodes: { node: string; storages: { storage: string; volumes: { volid: string; vmid?: number }[] }[] }[];
  vms: SimVm[];
}
interface PoolAnswer {
  name: string;
  cores: number;
  idle: number;
  claimed: number;
  creating: number;
}
interface Accepted {
  jobId: string;
  uid: string;
  origin?: string;
  warmPool?: string;
  address?: string;
}
interface JobAnswer {
  state: string;
  result?: { origin?: string; state?: string; address?: string; vmid: number; node: string };
  failedReason?: string;
  logs: string[];
}

describe('warm pools end to end on the simulator (SPEC 30)', function () {
  this.timeout(300_000);
  let service: ServiceOnSim;
  let redis: Redis;
  let tag: string;
  /** The claimed VM of case b, and the member it was. */
  let claimed: { vmid: number; node: string; member: string } | undefined;
  /** Every sweep's report, in order. */
  const sweeps: SweepReport[] = [];

  const url = (path: string): string => service.url(path);
  const sim = async <T>(path: string): Promise<T> => (await (await fetch(`${service.simUrl}${path}`)).json()) as T;
  const simState = (): Promise<SimState> => sim<SimState>('/_sim/state');
  const post = (body: Record<string, unknown>): Promise<Response> => fetch(url('/v1/vms'), { method: 'POST', headers: service.headers, body: JSON.stringify(body) });

  async function pool(): Promise<PoolAnswer> {
    const res = await fetch(url('/v1/pools'), { headers: service.headers });
    expect(res.status, await res.clone().text()).to.equal(200);
    const { pools } = (await res.json()) as { pools: PoolAnswer[] };
    expect(pools.map((p) => p.name)).to.deep.equal(['small']);
    return pools[0] as PoolAnswer;
  }

  /** Asks `probe` every half second until it answers something, or fails naming `what` and the last state seen. */
  async function until<T>(what: string, probe: () => Promise<T | undefined>, deadlineMs = DEADLINE_MS): Promise<T> {
    const end = Date.now() + deadlineMs;
    for (;;) {
      const found = await probe();
      if (found !== undefined) return found;
      if (Date.now() > end) throw new Error(`${what}: not within ${deadlineMs} ms; pool ${JSON.stringify(await pool())}; VMs ${JSON.stringify((await simState()).vms.map((v) => [v.vmid, v.config.name, v.status, v.config.tags]))}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  /** The job once it has ended (the API's longest wait is 60 s, so asked again while it runs). */
  async function ended(jobId: string): Promise<JobAnswer> {
    for (;;) {
      const res = await fetch(url(`/v1/jobs/${jobId}?waitSeconds=60`), { headers: service.headers });
      expect(res.status, await res.clone().text()).to.equal(200);
      const job = (await res.json()) as JobAnswer;
      if (job.state === 'completed' || job.state === 'failed') return job;
    }
  }

  async function create(body: Record<string, unknown>): Promise<{ accepted: Accepted; job: JobAnswer }> {
    const res = await post(body);
    expect(res.status, await res.clone().text()).to.equal(202);
    const accepted = (await res.json()) as Accepted;
    const job = await ended(accepted.jobId);
    expect(job.state, `${job.failedReason ?? ''}\n${job.logs.join('\n')}`).to.equal('completed');
    return { accepted, job };
  }

  /** A sample of /metrics (the process's registry: other files' counts too, so compared before and after). */
  async function metric(name: string): Promise<number> {
    const samples = parseSamples(await (await fetch(url('/metrics'), { headers: service.headers })).text());
    return valueOf(samples, name, { pool: 'small' }) ?? 0;
  }

  const members = async (): Promise<SimVm[]> => (await simState()).vms.filter((vm) => MEMBER_RE.test(String(vm.config.name ?? '')));
  const tagsOf = (vm: SimVm | undefined): string[] => String(vm?.config.tags ?? '').split(';');

  /** The pool idle at `idle` with that many members in the simulator, all Running, of `cores`; the members. */
  async function filled(cores: number): Promise<SimVm[]> {
    return until(`pool idle ${POOL.minIdle} of ${cores} cores`, async () => {
      const seen = await pool();
      if (seen.idle !== POOL.minIdle || seen.creating !== 0 || seen.claimed !== 0) return undefined;
      const vms = await members();
      return vms.length === POOL.minIdle && vms.every((vm) => vm.status === 'running' && Number(vm.config.cores) === cores) ? vms : undefined;
    });
  }

  /** A sweep now (reconcile, not a dry run), its report once done. */
  async function sweep(): Promise<SweepReport> {
    const queues: Queues = createQueues(redis, service.prefix);
    try {
      const door = jobDoor(queues, limitsFromConfig(service.config));
      const job = await door.add('reconcile', { dryRun: false });
      const report = await until('the sweep', async () => ((await job.isCompleted()) ? ((await queues.system.getJob(job.id ?? ''))?.returnvalue as SweepReport) : undefined));
      sweeps.push(report);
      return report;
    } finally {
      await queues.vm.close();
      await queues.system.close();
    }
  }

  before(async () => {
    service = await startServiceOnSim('warm-pools', {
      overrides: {
        proxmox: { images: IMAGES, defaultImage: 'debian' },
        pools: [POOL],
        // Sweeps only when a case runs one, and with no grace: a VM no record knows goes at once.
        reconciler: { everySeconds: 3600, graceSeconds: 0 },
        health: { everySeconds: 3600 },
      },
    });
    tag = service.config.proxmox.tag;
    redis = new Redis(REDIS_URL);
  });

  after(async () => {
    redis?.disconnect();
    await service?.close();
  });

  it('a. the refill fills the pool: two members idle, Running, tagged ours and as pool VMs', async () => {
    const vms = await filled(POOL.cores);
    for (const vm of vms) expect(tagsOf(vm), String(vm.config.name)).to.include.members([tag, `${tag}-pool`]);
  });

  it("b. a create of the pool's shape takes an idle member: renamed, marked, seed ejected, exactly its keys written; the pool refills", async () => {
    const before = await filled(POOL.cores);
    const claims = await metric('pvep_pool_claims_total');
    const { accepted, job } = await create({ name: 'warm-1', ...SHAPE, sshKeys: KEYS });
    expect(accepted).to.include({ origin: 'pool', warmPool: 'small' });
    expect(job.result).to.include({ origin: 'pool', state: 'Running' });
    expect(job.result?.address, 'the address').to.be.a('string');

    const vm = (await simState()).vms.find((v) => v.vmid === job.result?.vmid);
    const was = before.find((v) => v.vmid === job.result?.vmid);
    expect(was, 'the VM was an idle member').to.not.equal(undefined);
    claimed = { vmid: job.result?.vmid ?? 0, node: job.result?.node ?? '', member: String(was?.config.name) };
    expect(vm?.config).to.include({ name: 'warm-1', ide2: 'none,media=cdrom' });
    expect(parseMark(String(vm?.config.description))?.uid).to.equal(accepted.uid);
    expect(tagsOf(vm)).to.include(tag).and.not.include(`${tag}-pool`);
    // The member's seed stays on its storage, attached to no VM: the sweep's to remove (case f).
    const state = await simState();
    const seedVolid = state.nodes.flatMap((n) => n.storages.flatMap((s) => s.volumes.map((v) => v.volid))).find((volid) => volid.endsWith(`/${claimed?.member ?? ''}-seed.iso`));
    expect(seedVolid, "the member's seed").to.be.a('string');
    expect(state.vms.filter((v) => Object.values(v.config).some((value) => String(value).includes(seedVolid ?? ''))).map((v) => v.vmid), 'VMs with the seed attached').to.deep.equal([]);

    const guests = await sim<{ guestFiles: { vmid: number; files: Record<string, string> }[] }>('/_sim/guests');
    const files = guests.guestFiles.find((g) => g.vmid === job.result?.vmid)?.files;
    expect(files).to.deep.equal({ '/home/debian/.ssh/authorized_keys': `${KEYS.join('\n')}\n` });

    const view = await fetch(url('/v1/vms/warm-1'), { headers: service.headers });
    expect(view.status).to.equal(200);
    expect(await view.json()).to.deep.include({ name: 'warm-1' });

    await filled(POOL.cores);
    // A repeat of the create is the same job: nothing claimed again.
    const again = await post({ name: 'warm-1', ...SHAPE, sshKeys: KEYS });
    expect(again.status).to.equal(200);
    expect(await again.json()).to.include({ jobId: accepted.jobId });
    expect(await pool()).to.include({ idle: POOL.minIdle, claimed: 0 });
    expect(await metric('pvep_pool_claims_total'), 'claims counted').to.equal(claims + 1);
    expect(await metric('pvep_pool_idle_vms')).to.equal(POOL.minIdle);
  });

  it('c. a create with userData never claims and goes the cold way; so does one asking pool false', async () => {
    await filled(POOL.cores);
    const withUserData = await create({ name: 'cold-ud', ...SHAPE, userData: '#cloud-config\n' });
    expect(withUserData.accepted).to.include({ origin: 'cold' });
    expect(withUserData.job.result).to.include({ origin: 'cold', state: 'Running' });
    const asked = await create({ name: 'cold-asked', ...SHAPE, pool: false });
    expect(asked.accepted).to.include({ origin: 'cold' });
    expect(asked.job.result).to.include({ origin: 'cold', state: 'Running' });
    expect(await pool()).to.include({ idle: POOL.minIdle, claimed: 0 });
    expect((await members()).map((vm) => vm.config.name)).to.have.length(POOL.minIdle);
  });

  it("d. a restart with the pool's shape changed drains the old idle members and makes new ones of the new shape", async () => {
    const old = (await filled(POOL.cores)).map((vm) => vm.vmid);
    await service.restart({ pools: [RESHAPED] });
    // At once, the old members maybe still idle: the old shape no longer claims, the new one never gets an old member.
    const oldShape = await create({ name: 'old-shape', ...SHAPE });
    expect(oldShape.accepted).to.include({ origin: 'cold' }).and.not.have.property('warmPool');
    const newShape = await create({ name: 'new-shape', ...SHAPE, cores: RESHAPED.cores });
    expect(newShape.accepted).to.include({ warmPool: 'small' });
    expect(old, 'a member of the old shape claimed').to.not.include(newShape.job.result?.vmid);
    expect((await simState()).vms.find((vm) => vm.vmid === newShape.job.result?.vmid)?.config.cores).to.equal(RESHAPED.cores);
    const fresh = await filled(RESHAPED.cores);
    expect(fresh.map((vm) => vm.vmid)).to.not.include.members(old);
    const vmids = (await simState()).vms.map((vm) => vm.vmid);
    for (const vmid of old) expect(vmids, `old member ${vmid} is gone`).to.not.include(vmid);
    expect(await pool()).to.include({ cores: RESHAPED.cores });
  });

  it('e. the sweep keeps the idle members and the claimed VM, and deletes a pool VM no record knows', async () => {
    const idle = await filled(RESHAPED.cores);
    const [forgotten, kept] = idle;
    const name = String(forgotten?.config.name);
    // The member's records gone, its VM left: as if its record had been lost.
    const prefix = keyPrefix(service.prefix);
    await redis.del(keys.desired(prefix, name));
    await redis.srem(keys.desiredIndex(prefix), name);
    await redis.hdel(keys.poolMembers(prefix, 'small'), name);
    await redis.zrem(keys.poolIdle(prefix, 'small'), name);

    const report = await sweep();
    expect(report.orphans.deleted.map((o) => [o.name, o.reason]), JSON.stringify(report)).to.deep.equal([[name, 'unknown name']]);
    expect(report.orphans.unknown, JSON.stringify(report)).to.deep.equal([]);
    await until(`the forgotten member ${name} deleted`, async () => ((await simState()).vms.some((vm) => vm.vmid === forgotten?.vmid) ? undefined : true));
    const vms = (await simState()).vms;
    expect(vms.find((vm) => vm.vmid === kept?.vmid)?.config.name, 'the idle member').to.equal(kept?.config.name);
    expect(vms.find((vm) => vm.vmid === claimed?.vmid)?.config.name, 'the claimed VM').to.equal('warm-1');
    await filled(RESHAPED.cores);
  });

  it("f. a delete of the claimed name removes its VM, and the sweep the member's seed", async () => {
    expect(claimed, 'case b claimed').to.not.equal(undefined);
    const res = await fetch(url('/v1/vms/warm-1'), { method: 'DELETE', headers: { authorization: service.headers.authorization ?? '' } });
    expect(res.status).to.equal(202);
    const job = await ended(((await res.json()) as { jobId: string }).jobId);
    expect(job.state, `${job.failedReason ?? ''}\n${job.logs.join('\n')}`).to.equal('completed');
    expect((await simState()).vms.map((vm) => vm.vmid)).to.not.include(claimed?.vmid);

    const report = await sweep();
    const volumes = (await simState()).nodes.flatMap((n) => n.storages.flatMap((s) => s.volumes.map((v) => v.volid)));
    const seedOf = (name: string) => (volid: string): boolean => volid.endsWith(`/${name}-seed.iso`);
    expect(volumes.filter(seedOf(claimed?.member ?? '')), `the member's seed; sweep ${JSON.stringify(report.seeds)}`).to.deep.equal([]);
    expect(volumes.filter(seedOf('warm-1')), "the claimer's (none: a claim uploads none)").to.deep.equal([]);
    const deleted = sweeps.flatMap((r) => r.seeds.deleted.map((ref) => ref.name));
    expect(deleted, 'the seeds the sweeps deleted').to.include(claimed?.member);
  });

  it("g. a claim whose member's VM became someone else's goes the cold way, leaves that VM alone, and the pool refills", async () => {
    await filled(RESHAPED.cores);
    // The oldest-ready idle member is the one a claim takes; its VM now another's (no mark, another name).
    const [oldest] = await redis.zrange(keys.poolIdle(keyPrefix(service.prefix), 'small'), 0, 0);
    const vm = (await members()).find((m) => m.config.name === oldest);
    expect(vm, `the oldest idle member ${oldest ?? ''}`).to.not.equal(undefined);
    const planted = await fetch(`${service.simUrl}/_sim/vms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ node: vm?.node, vmid: vm?.vmid, config: { name: 'not-ours', cores: 1, memory: 512 } }) });
    expect(planted.status, await planted.clone().text()).to.equal(200);
    const misses = await metric('pvep_pool_misses_total');

    const { accepted, job } = await create({ name: 'warm-lost', ...SHAPE, cores: RESHAPED.cores });
    expect(accepted, 'the door claimed it').to.include({ origin: 'pool' });
    expect(job.result).to.include({ origin: 'cold', state: 'Running' });
    expect(job.result?.vmid).to.not.equal(vm?.vmid);
    expect(job.logs.join('\n')).to.include(`claim of ${oldest ?? ''}`);
    const other = (await simState()).vms.find((v) => v.vmid === vm?.vmid);
    expect(other?.config, 'the other VM untouched').to.deep.equal({ name: 'not-ours', cores: 1, memory: 512 });
    expect(await metric('pvep_pool_misses_total'), 'the lost claim a miss').to.equal(misses + 1);
    await until('the pool refilled', async () => {
      const seen = await pool();
      return seen.idle === POOL.minIdle && seen.claimed === 0 && seen.creating === 0 ? seen : undefined;
    });
  });

  it("g2. a create claiming for a name whose VM is still there (its delete superseded before it ran) renames no member: one VM, the earlier uid's replaced or the same uid's kept (SPEC 2, 30)", async () => {
    const cores = RESHAPED.cores;
    await filled(cores);
    const registry = new DesiredStateRegistry(redis, keyPrefix(service.prefix), 60);
    const first = await create({ name: 'twice', ...SHAPE, cores });
    expect(first.job.result).to.include({ origin: 'pool' });
    const named = async (): Promise<SimVm[]> => (await simState()).vms.filter((vm) => vm.config.name === 'twice');

    // The delete recorded, its job never run (as when a new create supersedes it first); the next create claims.
    await filled(cores);
    await registry.recordAbsent('twice', first.accepted.uid);
    const second = await create({ name: 'twice', ...SHAPE, cores });
    expect(second.accepted, 'the door claimed').to.include({ origin: 'pool' });
    expect(second.job.result, 'the claim lost: the cold way').to.include({ origin: 'cold', state: 'Running' });
    expect(second.job.logs.join('\n')).to.include('is named twice already');
    let vms = await named();
    expect(vms.map((vm) => parseMark(String(vm.config.description))?.uid), 'one VM, the new uid\'s').to.deep.equal([second.accepted.uid]);
    expect(vms.map((vm) => vm.vmid)).to.not.include(first.job.result?.vmid);
    // The member it claimed is deleted, not left renamed or idle: the pool holds minIdle members again.
    await filled(cores);

    // The same uid again: its VM is kept as it is.
    await registry.recordAbsent('twice', second.accepted.uid);
    const third = await create({ name: 'twice', uid: second.accepted.uid, ...SHAPE, cores });
    expect(third.accepted).to.include({ origin: 'pool' });
    expect(third.job.result).to.include({ origin: 'cold', vmid: second.job.result?.vmid });
    vms = await named();
    expect(vms.map((vm) => vm.vmid), 'one VM, kept').to.deep.equal([second.job.result?.vmid]);
    await filled(cores);
  });

  it('h. a restart with the pool taken out of config drains its members', async () => {
    const left = (await filled(RESHAPED.cores)).map((vm) => vm.vmid);
    await service.restart({ pools: [] });
    const res = await fetch(url('/v1/pools'), { headers: service.headers });
    expect(await res.json()).to.deep.equal({ pools: [] });
    await until('the members gone', async () => ((await members()).length === 0 ? true : undefined));
    const vmids = (await simState()).vms.map((vm) => vm.vmid);
    expect(vmids.filter((vmid) => left.includes(vmid))).to.deep.equal([]);
    expect(await redis.smembers(keys.poolNames(keyPrefix(service.prefix))), 'no pool with members left').to.deep.equal([]);
  });
});

/** A /24 of this run's own in 127.78.0.0/16, so two runs at once never share an address. */
const NET = `127.78.${1 + Math.floor(Math.random() * 250)}`;
const NETWORK = { name: 'lab', bridge: 'vmbr0', cidr: `${NET}.0/24`, gateway: `${NET}.1`, dns: ['127.0.0.53'], first: `${NET}.10`, last: `${NET}.20` };

describe('warm pools on a pooled network end to end on the simulator (SPEC 30, 29)', function () {
  this.timeout(300_000);
  let service: ServiceOnSim;

  const url = (path: string): string => service.url(path);
  const get = async <T>(path: string): Promise<T> => (await (await fetch(url(path), { headers: service.headers })).json()) as T;

  async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
    const end = Date.now() + DEADLINE_MS;
    for (;;) {
      const found = await probe();
      if (found !== undefined) return found;
      if (Date.now() > end) throw new Error(`${what}: not within ${DEADLINE_MS} ms; pools ${JSON.stringify(await get('/v1/pools'))}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  async function ended(jobId: string): Promise<JobAnswer> {
    for (;;) {
      const job = await get<JobAnswer>(`/v1/jobs/${jobId}?waitSeconds=60`);
      if (job.state === 'completed' || job.state === 'failed') return job;
    }
  }

  const idle = (): Promise<number> => until('the pool idle', async () => {
    const { pools } = await get<{ pools: PoolAnswer[] }>('/v1/pools');
    const seen = pools[0];
    return seen !== undefined && seen.idle === 1 && seen.creating === 0 && seen.claimed === 0 ? seen.idle : undefined;
  });

  before(async () => {
    service = await startServiceOnSim('warm-pools-net', {
      overrides: {
        proxmox: {
          nodes: [
            { name: 'pve1', template: 9001, isoStorage: 'proxy-seeds', bridge: 'vmbr0' },
            { name: 'pve2', template: 9002, isoStorage: 'proxy-seeds', bridge: 'vmbr0' },
          ],
          networks: [NETWORK],
          images: IMAGES,
          defaultImage: 'debian',
        },
        pools: [{ ...POOL, minIdle: 1, maxIdle: 1 }],
        reconciler: { everySeconds: 3600 },
        health: { everySeconds: 3600 },
      },
    });
  });

  after(async () => {
    await service?.close();
  });

  it("a claim takes the member's address lease: the 202 and the job say that address, the VM's view too, and a delete gives it back", async () => {
    await idle();
    const res = await fetch(url('/v1/vms'), { method: 'POST', headers: service.headers, body: JSON.stringify({ name: 'warm-net', ...SHAPE, sshKeys: KEYS }) });
    expect(res.status, await res.clone().text()).to.equal(202);
    const accepted = (await res.json()) as Accepted & { addressPool?: string };
    expect(accepted).to.include({ origin: 'pool', addressPool: 'lab' });
    expect(accepted.address).to.match(new RegExp(`^${NET.replace(/\./g, '\\.')}\\.\\d+$`));
    const job = await ended(accepted.jobId);
    expect(job.state, `${job.failedReason ?? ''}\n${job.logs.join('\n')}`).to.equal('completed');
    expect(job.result).to.include({ origin: 'pool', address: accepted.address });
    expect(await get('/v1/vms/warm-net')).to.deep.include({ address: accepted.address });

    // The refill's new member has an address of its own.
    await idle();
    const other = await fetch(url('/v1/vms'), { method: 'POST', headers: service.headers, body: JSON.stringify({ name: 'warm-net-2', ...SHAPE }) });
    const second = (await other.json()) as Accepted;
    expect(second).to.include({ origin: 'pool' });
    expect(second.address).to.be.a('string').and.not.equal(accepted.address);
    expect((await ended(second.jobId)).result).to.include({ address: second.address });

    const del = await fetch(url('/v1/vms/warm-net'), { method: 'DELETE', headers: { authorization: service.headers.authorization ?? '' } });
    expect(del.status).to.equal(202);
    expect((await ended(((await del.json()) as { jobId: string }).jobId)).state).to.equal('completed');
    // Leases left: warm-net-2's (its member's, moved) and the idle member's; none under a claimed member's name.
    const redis = new Redis(REDIS_URL);
    try {
      await idle();
      const held = Object.keys(await redis.hgetall(keys.addressLeases(keyPrefix(service.prefix)))).map((holder) => holder.split(' ')[0]);
      expect(held.filter((name) => !MEMBER_RE.test(name ?? ''))).to.deep.equal(['warm-net-2']);
      expect(held.filter((name) => MEMBER_RE.test(name ?? ''))).to.have.length(1);
    } finally {
      redis.disconnect();
    }
  });

  it('a claimed VM then changes in place as any other: more cores, the same VM and address, its seed still ejected', async () => {
    const before = await get<{ lastKnown?: { vmid?: number; address?: string } }>('/v1/vms/warm-net-2');
    const res = await fetch(url('/v1/vms'), { method: 'POST', headers: service.headers, body: JSON.stringify({ name: 'warm-net-2', ...SHAPE, cores: 2 }) });
    expect(res.status, await res.clone().text()).to.equal(202);
    const accepted = (await res.json()) as Accepted;
    // SPEC 30, 2: the name keeps its claim across the new generation (its VM is the one it claimed); no other member is taken.
    expect(accepted, 'an in-place change of a claimed name').to.include({ origin: 'pool' });
    const job = await ended(accepted.jobId);
    expect(job.state, `${job.failedReason ?? ''}\n${job.logs.join('\n')}`).to.equal('completed');
    expect(job.result).to.include({ vmid: before.lastKnown?.vmid, address: before.lastKnown?.address });
    const state = (await (await fetch(`${service.simUrl}/_sim/state`)).json()) as SimState;
    const vm = state.vms.find((v) => v.vmid === before.lastKnown?.vmid);
    expect(vm?.config).to.include({ name: 'warm-net-2', cores: 2, ide2: 'none,media=cdrom' });
  });
});
