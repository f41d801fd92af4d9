// SPEC 21 "Provisioning": 200 creates, then 200 deletes, against the
// simulator with the task times of F16 and F21 scaled down 100 times
// (timeScale 0.01; budgets.pollMs scaled the same way, 1000 -> 10 ms), two
// worker processes. The ideal the concurrency allows is the time of one
// create (or delete) run alone, times the waves the two workers'
// concurrency needs. Bar: total within 1.5 times the ideal. Also Proxmox
// calls per create from /_sim/requests, polls counted apart.
// Options: --vms N (creates), --concurrency N (per worker), --quick.
import { performance } from 'node:perf_hooks';
import { createProvisionerClient, type ProvisionerClient } from '../src/client.js';
import { loadConfig } from '../src/config.js';
import { listLiveWorkers } from '../src/queue/heartbeat.js';
import { REDIS_URL, benchFlags, benchPrefix, deletePrefix, intFlag, newRedis, printJson, printTable, sleep } from './_common.js';
import { serviceEnv, startCli, startSimChild, type Child } from './_processes.js';

const flags = benchFlags('provision', { vms: { type: 'string' }, concurrency: { type: 'string' } });
const VMS = intFlag(flags, 'vms', 200, 40);
const CONCURRENCY = intFlag(flags, 'concurrency', 8, 8);
const WORKERS = 2;
const TIME_SCALE = 0.01;
const POLL_MS = 10;
const BAR = 1.5;

interface SimRequest {
  method: string;
  path: string;
  params: Record<string, string>;
}

const TEMPLATE_CONFIG = /\/qemu\/900[01]\/config$/;

/** `/api2/json/nodes/pve1/qemu/100123/config` -> `GET nodes/{node}/qemu/{vmid}/config`. */
function endpoint(r: SimRequest): string {
  const path = r.path
    .replace(/^\/api2\/json\//, '')
    .replace(/nodes\/[^/]+/, 'nodes/{node}')
    .replace(/qemu\/900[01]\/config/, 'qemu/{template}/config')
    .replace(/qemu\/\d+/, 'qemu/{vmid}')
    .replace(/storage\/[^/]+/, 'storage/{storage}')
    .replace(/content\/[^/]+$/, 'content/{volid}')
    .replace(/tasks\/[^/]+/, 'tasks/{upid}');
  const type = r.params.type === undefined ? '' : `?type=${r.params.type}`;
  return `${r.method} ${path}${type}`;
}

/**
 * The calls SPEC 13's steps need, per create: the node listing for
 * placement, one VM listing to find the name, the template's config, and
 * every write (clone, upload, config, resize, start). Every other read is
 * a poll: task status, and the Get cycles (VM listing, config, status,
 * agent) that wait for running and for the address.
 */
function stepCalls(requests: SimRequest[], creates: number): number {
  const writes = requests.filter((r) => r.method !== 'GET').length;
  const placement = requests.filter((r) => r.path.endsWith('/cluster/resources') && r.params.type === 'node').length;
  const templateReads = requests.filter((r) => r.method === 'GET' && TEMPLATE_CONFIG.test(r.path)).length;
  const findByName = Math.min(creates, requests.filter((r) => r.path.endsWith('/cluster/resources') && r.params.type === 'vm').length);
  return writes + placement + templateReads + findByName;
}

async function runAll(client: ProvisionerClient, names: string[], verb: 'create' | 'delete'): Promise<{ seconds: number; failed: string[] }> {
  const start = performance.now();
  const ids = await Promise.all(names.map(async (name) => (verb === 'create' ? client.createVm({ name, uid: `uid-${name}` }) : client.deleteVm({ name })).then((r) => r.jobId)));
  const views = await Promise.all(ids.map((id) => client.waitForJob(id, { timeoutMs: 600_000 })));
  const seconds = (performance.now() - start) / 1000;
  return { seconds, failed: views.filter((v) => v.state !== 'completed').map((v) => `${v.id}: ${v.state} ${v.failedReason ?? ''}`) };
}

const prefix = benchPrefix('provision');
const redis = newRedis();
const sim = await startSimChild({ vms: 3, timeScale: TIME_SCALE });
const workers: Child[] = [];
let client: ProvisionerClient | undefined;
try {
  const env = serviceEnv(sim, REDIS_URL, prefix, { JOBS_CONCURRENCY: String(CONCURRENCY), BUDGETS_POLL_MS: String(POLL_MS) });
  for (let i = 0; i < WORKERS; i += 1) workers.push(startCli(['worker'], env));
  while ((await listLiveWorkers(redis, prefix)).length < WORKERS) {
    if (workers.some((w) => w.process.exitCode !== null)) throw new Error(`a worker exited: ${workers.map((w) => w.output()).join('\n')}`);
    await sleep(100);
  }
  const config = loadConfig({ env: {}, overrides: { redis: { url: REDIS_URL, prefix } } });
  client = createProvisionerClient({ redisUrl: REDIS_URL, prefix, config });

  // One create and one delete alone: what a single job takes here.
  const single = { create: await runAll(client, ['solo-0'], 'create'), delete: await runAll(client, ['solo-0'], 'delete') };
  if (single.create.failed.length + single.delete.failed.length > 0) throw new Error(`the single run failed: ${[...single.create.failed, ...single.delete.failed].join('; ')}`);

  const names = Array.from({ length: VMS }, (_, i) => `prov-${i}`);
  await sim.control('DELETE', '/_sim/requests');
  const creates = await runAll(client, names, 'create');
  const createRequests = (await sim.control<{ requests: SimRequest[] }>('GET', '/_sim/requests')).requests;
  const deletes = await runAll(client, names, 'delete');
  if (creates.failed.length + deletes.failed.length > 0) throw new Error(`jobs failed: ${[...creates.failed, ...deletes.failed].slice(0, 5).join('; ')}`);
  const state = await sim.control<{ vms: { config: { name?: string } }[] }>('GET', '/_sim/state');
  const left = state.vms.filter((vm) => vm.config.name?.startsWith('prov-')).length;
  if (left > 0) throw new Error(`${left} VMs are left after the deletes`);

  const waves = Math.ceil(VMS / (WORKERS * CONCURRENCY));
  const ideal = waves * (single.create.seconds + single.delete.seconds);
  const total = creates.seconds + deletes.seconds;
  const ratio = total / ideal;
  const steps = stepCalls(createRequests, VMS);
  const polls = createRequests.length - steps;
  const byEndpoint = new Map<string, number>();
  for (const r of createRequests) byEndpoint.set(endpoint(r), (byEndpoint.get(endpoint(r)) ?? 0) + 1);

  printTable(`provisioning: ${VMS} creates then ${VMS} deletes, ${WORKERS} worker processes x concurrency ${CONCURRENCY}, timeScale ${TIME_SCALE}, pollMs ${POLL_MS}`, [
    { phase: 'one create alone', seconds: Number(single.create.seconds.toFixed(3)) },
    { phase: 'one delete alone', seconds: Number(single.delete.seconds.toFixed(3)) },
    { phase: `${VMS} creates`, seconds: Number(creates.seconds.toFixed(3)) },
    { phase: `${VMS} deletes`, seconds: Number(deletes.seconds.toFixed(3)) },
    { phase: `ideal (${waves} waves)`, seconds: Number(ideal.toFixed(3)) },
  ]);
  printTable('Proxmox calls per create, every endpoint, then steps and polls apart', [
    ...[...byEndpoint].sort((a, b) => b[1] - a[1]).map(([call, n]) => ({ call, perCreate: Number((n / VMS).toFixed(2)) })),
    { call: 'steps (SPEC 13)', perCreate: Number((steps / VMS).toFixed(2)) },
    { call: 'polls (tasks, Get cycles)', perCreate: Number((polls / VMS).toFixed(2)) },
  ]);
  printTable('summary', [{ totalSeconds: Number(total.toFixed(3)), idealSeconds: Number(ideal.toFixed(3)), ratio: Number(ratio.toFixed(3)), bar: BAR, meets: ratio <= BAR ? 'yes' : 'NO' }]);
  printJson('provision', {
    vms: VMS,
    workers: WORKERS,
    concurrency: CONCURRENCY,
    timeScale: TIME_SCALE,
    pollMs: POLL_MS,
    singleCreateSeconds: single.create.seconds,
    singleDeleteSeconds: single.delete.seconds,
    createSeconds: creates.seconds,
    deleteSeconds: deletes.seconds,
    idealSeconds: ideal,
    ratio,
    bar: BAR,
    meetsBar: ratio <= BAR,
    callsPerCreate: steps / VMS,
    pollsPerCreate: polls / VMS,
    callsByEndpoint: Object.fromEntries([...byEndpoint].map(([k, n]) => [k, n / VMS])),
  });
} finally {
  await client?.close();
  await Promise.all(workers.map((w) => w.stop(5000)));
  await sim.child.stop();
  await deletePrefix(redis, prefix);
  redis.disconnect();
}
