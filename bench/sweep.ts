// SPEC 21 "Sweep": one reconcile sweep (dry run: it takes the whole
// inventory and decides, changing nothing) over a cluster of 10,000 VMs of
// which 1,000 are ours, against one of 1,000 VMs all ours, every one of
// them present in the registry with the last-known VMID and node its
// create wrote, and its seed recorded as the create records it before the
// upload. Bars: within 1.1 times (the cost follows our VMs, not the
// cluster), and SPEC 26's one Proxmox call per steady sweep. The backstop
// sweep (the storage listings, on a process's first sweep and every
// reconciler.seedListingEvery sweeps) is measured apart: its calls and how
// often it runs. The simulator runs as its own process. Options: --total N,
// --ours N, --rounds N, --quick.
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config/index.js';
import { silentLogger } from '../src/log.js';
import { formatMark } from '../src/provider/mark.js';
import { createProvider } from '../src/provider/provider.js';
import { createHttpApi } from '../src/proxmox/http-api.js';
import { NameLocks } from '../src/queue/name-lock.js';
import { redisSeedRecords } from '../src/queue/seed-records.js';
import { createQueues } from '../src/queue/queues.js';
import { DesiredStateRegistry } from '../src/queue/registry.js';
import { createReconcileRunner } from '../src/reconciler/run.js';
import type { SweepReport } from '../src/reconciler/report.js';
import { REDIS_URL, benchFlags, benchPrefix, deletePrefix, intFlag, newRedis, printJson, printTable } from './_common.js';
import { startSimChild, type SimChild } from './_processes.js';

const flags = benchFlags('sweep', { total: { type: 'string' }, ours: { type: 'string' }, rounds: { type: 'string' } });
const TOTAL = intFlag(flags, 'total', 10_000, 2_000);
const OURS = intFlag(flags, 'ours', 1_000, 200);
const ROUNDS = intFlag(flags, 'rounds', 5, 2);
const BAR = 1.1;
const NODES = ['pve1', 'pve2'];
const TAG = 'pve_provisioner';

interface Scenario {
  scenario: string;
  vms: number;
  ours: number;
  medianSeconds: number;
  minSeconds: number;
  proxmoxCalls: number;
  resourcesCalls: number;
  configReads: number;
  seedListingCalls: number;
  listed: number;
  /** The backstop sweep, a fresh process's first: its calls and time (warm JIT, warm simulator). */
  backstopCalls: number;
  backstopSeconds: number;
  /** The one /cluster/resources call alone (fetch and parse), median of the rounds: the part of the sweep that follows the cluster. */
  listingSeconds: number;
}

interface SimRequest {
  method: string;
  path: string;
}

function ourConfig(name: string, uid: string, vmid: number): Record<string, string | number> {
  return {
    name,
    description: formatMark(uid, new Date(Date.now() - 24 * 3600 * 1000)),
    tags: TAG,
    agent: '1',
    boot: 'order=scsi0;ide2',
    cores: 2,
    memory: '2048',
    ide2: `proxy-seeds:iso/${name}-seed.iso,media=cdrom`,
    net0: 'virtio=BC:24:11:00:00:01,bridge=vmbr0',
    scsi0: `local-lvm:vm-${vmid}-disk-0,size=10G`,
    scsihw: 'virtio-scsi-single',
  };
}

interface Planted {
  name: string;
  uid: string;
  vmid: number;
  node: string;
}

async function plantOurs(sim: SimChild, count: number): Promise<Planted[]> {
  const planted: Planted[] = [];
  for (let i = 0; i < count; i += 50) {
    const batch = Array.from({ length: Math.min(50, count - i) }, (_, k) => i + k);
    await Promise.all(
      batch.map(async (n) => {
        const name = `ours-${n}`;
        const uid = `uid-${n}`;
        const vmid = 500000 + n;
        const node = NODES[n % NODES.length] as string;
        await sim.control('POST', '/_sim/vms', { node, vmid, config: ourConfig(name, uid, vmid), status: 'running', startedSecondsAgo: 3600 });
        planted.push({ name, uid, vmid, node });
      }),
    );
  }
  return planted;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function runScenario(label: string, foreign: number, ours: number): Promise<Scenario> {
  const sim = await startSimChild({ vms: foreign });
  const prefix = benchPrefix('sweep');
  const redis = newRedis();
  const queues = createQueues(redis, prefix);
  try {
    const planted = await plantOurs(sim, ours);
    const config = loadConfig({ env: {}, overrides: { proxmox: { url: sim.url, tokenFile: sim.tokenFile }, redis: { url: REDIS_URL, prefix } } });
    const registry = new DesiredStateRegistry(redis, prefix, config.registry.tombstoneSeconds);
    const seedRecords = redisSeedRecords(redis, prefix);
    for (const { name, uid, vmid, node } of planted) {
      await registry.recordPresent(name, uid, { name, uid });
      // What the create writes before its upload (src/provider/create.ts).
      const volid = `proxy-seeds:iso/${name}-seed.iso`;
      await seedRecords.intend({ node, storage: 'proxy-seeds', volid, name, uid, vmid, at: new Date(Date.now() - 24 * 3600 * 1000).toISOString() });
      // What the create job writes when it ends (jobs/create.ts).
      await registry.recordLastKnown(name, { state: 'Running', vmid, node, at: new Date().toISOString() });
    }
    const logger = silentLogger();
    // One provider and runner per "process": the runner's first sweep is a backstop sweep.
    const processOf = (): ReturnType<typeof createReconcileRunner> => {
      const provider = createProvider({ api: createHttpApi({ baseUrl: sim.url, tokenFile: sim.tokenFile, logger }), config, logger, seedRecords });
      return createReconcileRunner({ config, redis, provider, queues, registry, locks: new NameLocks(redis, prefix) });
    };
    const run = processOf();

    const times: number[] = [];
    let requests: SimRequest[] = [];
    let report: SweepReport | undefined;
    // A first sweep, not counted, warms the fresh simulator process and
    // this one's JIT: otherwise the scenario run first pays for both. A
    // real one (with every VM and seed wanted it changes nothing): a dry
    // run is no process's first sweep, so only a real one makes the
    // counted dry runs steady sweeps.
    const warm = await run({ dryRun: false }, { signal: new AbortController().signal });
    if ('skipped' in warm || !warm.seeds.storagesListed) throw new Error('the warm-up sweep did not list the storages');
    const { orphansDeleted, seedsDeleted, missingReenqueued } = warm.counts;
    if (orphansDeleted + seedsDeleted + missingReenqueued > 0) throw new Error('the warm-up sweep acted on the planted cluster');
    for (let round = 0; round < ROUNDS; round += 1) {
      await sim.control('DELETE', '/_sim/requests');
      const start = performance.now();
      const outcome = await run({ dryRun: true }, { signal: new AbortController().signal });
      times.push((performance.now() - start) / 1000);
      if ('skipped' in outcome) throw new Error('the sweep was skipped: another sweep holds the lock');
      report = outcome;
      requests = (await sim.control<{ requests: SimRequest[] }>('GET', '/_sim/requests')).requests;
    }
    if (report === undefined) throw new Error('no sweep ran');
    if (report.seeds.storagesListed) throw new Error('a counted sweep listed the storages: not a steady sweep');
    const steadyRequests = requests;
    // A second process's first sweep: the backstop (storage listings, shared flags read again).
    const fresh = processOf();
    await sim.control('DELETE', '/_sim/requests');
    const backstopStart = performance.now();
    const backstop = await fresh({ dryRun: true }, { signal: new AbortController().signal });
    const backstopSeconds = (performance.now() - backstopStart) / 1000;
    if ('skipped' in backstop || !backstop.seeds.storagesListed) throw new Error('the backstop sweep did not list the storages');
    const backstopCalls = (await sim.control<{ requests: SimRequest[] }>('GET', '/_sim/requests')).requests.length;
    requests = steadyRequests;
    const api = createHttpApi({ baseUrl: sim.url, tokenFile: sim.tokenFile, logger });
    const listingTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const start = performance.now();
      await api.clusterResources('vm', {});
      listingTimes.push((performance.now() - start) / 1000);
    }
    if (report.ours < ours) throw new Error(`the sweep saw ${report.ours} VMs of ours, ${ours} were planted`);
    const fastest = Math.min(...times);
    return {
      scenario: label,
      vms: foreign + ours,
      ours,
      medianSeconds: median(times),
      minSeconds: fastest,
      proxmoxCalls: requests.length,
      resourcesCalls: requests.filter((r) => r.path.endsWith('/cluster/resources')).length,
      configReads: requests.filter((r) => r.path.endsWith('/config')).length,
      seedListingCalls: requests.filter((r) => /\/nodes\/[^/]+\/storage(\/[^/]+\/content)?$/.test(r.path)).length,
      listed: report.listed,
      backstopCalls,
      backstopSeconds,
      listingSeconds: median(listingTimes),
    };
  } finally {
    await queues.close();
    await deletePrefix(redis, prefix);
    redis.disconnect();
    await sim.child.stop();
  }
}

const big = await runScenario(`${TOTAL} VMs, ${OURS} ours`, TOTAL - OURS, OURS);
const small = await runScenario(`${OURS} VMs, all ours`, 0, OURS);
const ratio = big.medianSeconds / small.medianSeconds;
// SPEC 26: one call (the listing) per steady sweep, for every VM of ours known and every seed recorded.
const callsBar = 1;
const callsMet = big.proxmoxCalls <= callsBar && small.proxmoxCalls <= callsBar;
const defaults = loadConfig({ env: {} }).reconciler;
const backstopEvery = `first sweep of each process, then every ${defaults.seedListingEvery} sweeps (${(defaults.seedListingEvery * defaults.everySeconds) / 60} min at the defaults)`;
printTable(
  `reconcile sweep (dry run), ${ROUNDS} rounds each, simulator in its own process`,
  [big, small].map((s) => ({ ...s, medianSeconds: Number(s.medianSeconds.toFixed(3)), minSeconds: Number(s.minSeconds.toFixed(3)), backstopSeconds: Number(s.backstopSeconds.toFixed(3)), listingSeconds: Number(s.listingSeconds.toFixed(3)) })),
);
printTable('summary', [
  { figure: 'time ratio', value: Number(ratio.toFixed(3)), bar: BAR, meets: ratio <= BAR ? 'yes' : 'NO' },
  { figure: 'Proxmox calls per steady sweep', value: big.proxmoxCalls, bar: callsBar, meets: callsMet ? 'yes' : 'NO' },
  { figure: `backstop sweep calls (1 + 2 x ${NODES.length} nodes), ${backstopEvery}`, value: big.backstopCalls, bar: '-', meets: '-' },
]);
printJson('sweep', {
  scenarios: [big, small],
  ratio,
  bar: BAR,
  meetsBar: ratio <= BAR,
  proxmoxCalls: big.proxmoxCalls,
  proxmoxCallsBar: callsBar,
  meetsCallsBar: callsMet,
  backstopCalls: big.backstopCalls,
  seedListingEvery: defaults.seedListingEvery,
  everySeconds: defaults.everySeconds,
});
