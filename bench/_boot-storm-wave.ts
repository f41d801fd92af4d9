// One wave of bench/boot-storm.ts (issue 27, SPEC 28): every create
// enqueued at once, each waited for to its end, the simulator's counters
// cleared before and read after (its pvedaemon timelines sampled through
// the wave, as it keeps only the last 3000 buckets), then the figures per
// node and overall.
import { loadavg } from 'node:os';
import { readFileSync } from 'node:fs';
import type { ProvisionerClient } from '../src/client.js';
import type { JobView } from '../src/queue/job-view.js';
import { sleep } from './_common.js';
import type { SimChild } from './_processes.js';
import {
  DaemonTimelines,
  callsByRoute,
  daemonNodeOf,
  floorSeconds,
  isAgentCall,
  percentile,
  routeOf,
  type Capacity,
  type SimRequest,
  type SimTimings,
  type WaveFigures,
} from './_boot-storm-measure.js';

/** How often the capacity is sampled: well inside the 3000 buckets (3 s at timeScale 0.01) the simulator keeps. */
const SAMPLE_EVERY_MS = 1000;
/** pvedaemon workers per node in the simulator (sim.daemonWorkers); the service may hold 2 of them. */
export const DAEMON_WORKERS = 3;
/** qemu-server's guest-ping timeout (Agent.pm): how long a "not running" answer holds its worker, before timeScale. */
const AGENT_HOLD_SECONDS = 3;

export interface NodeRow {
  node: string;
  /** pvedaemon worker time held during the wave, wall seconds. */
  daemonWorkerSeconds: number;
  /** The same in real-host seconds (divided by timeScale). */
  daemonWorkerSecondsRealHost: number;
  /** Of the node's pvedaemon time in the wave (workers x wave seconds). */
  daemonShare: number;
  /** The most pvedaemon workers busy at once, from the timeline (bucketMs wide). */
  peakBusy: number;
  /** The same, from the pool's own peak counter. */
  peakInProgress: number;
  /** When the timeline first reached its peak, ms after the wave's first enqueue. */
  peakAtMs: number | undefined;
  /** Time with all workers busy, ms. */
  msAllBusy: number;
  longestWaitMs: number;
  answers596: number;
}

export interface WaveResult {
  creates: number;
  failed: string[];
  seconds: number;
  nodes: NodeRow[];
  figures: WaveFigures;
  agentCallsPerCreate: number;
  retriedJobs: number;
  p50Seconds: number;
  p95Seconds: number;
  floorSeconds: number;
  callsByRoute: Record<string, number>;
  /** CPU seconds the simulator and the worker processes used over the wave, and the 1-minute load average before and after: on a shared machine the wall times move with them. */
  cpu: { simSeconds: number; workerSeconds: number; loadBefore: number; loadAfter: number };
  /** For a node whose pvedaemon had every worker busy: the calls that reached it just before (label, count). */
  fullMoments: { node: string; atMs: number; arrivedBefore: Record<string, number> }[];
  /** Created VMs per node, as placement chose. */
  vmsByNode: Record<string, number>;
  /** The raw material, for --trace: the simulator's request log and each job as the client saw it. */
  trace: { startedAt: number; requests: SimRequest[]; jobs: JobView[] };
}

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}

/** Samples /_sim/capacity until stopped. */
function sampleCapacity(sim: SimChild, into: DaemonTimelines): { stop(): Promise<void> } {
  let running = true;
  const loop = (async () => {
    while (running) {
      into.add(await sim.control<Capacity>('GET', '/_sim/capacity'));
      await sleep(SAMPLE_EVERY_MS);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}

/** `agentInterfaces@pve1 500`: the seam method, its {node} and the status. */
function label(r: SimRequest): string {
  const node = /\/nodes\/([^/]+)/.exec(r.path)?.[1];
  return `${routeOf(r)?.name ?? r.path}${node === undefined ? '' : `@${node}`} ${r.status}`;
}

/** The protected calls that arrived for `node`'s pvedaemon within `windowMs` before `at` (epoch ms). */
function arrivedBefore(requests: SimRequest[], node: string, entryNode: string | undefined, at: number, windowMs: number, bucketMs: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of requests) {
    const t = Date.parse(r.at);
    if (t < at - windowMs || t > at + bucketMs || daemonNodeOf(r, entryNode) !== node) continue;
    counts[label(r)] = (counts[label(r)] ?? 0) + 1;
  }
  return counts;
}

/** utime + stime of a process, in seconds (clock ticks of 10 ms; Linux). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export interface WaveInput {
  sim: SimChild;
  client: ProvisionerClient;
  /** The worker processes' pids: their CPU over the wave is reported. */
  workerPids: number[];
  names: string[];
  /** Names each create's node, round-robin over these (--spread); empty: the service's placement picks. */
  spreadOver: string[];
  timings: SimTimings;
  /** The node whose URL the service uses: uploads run in its pvedaemon; undefined: each node has its own URL (apiUrl), so an upload runs on its target. */
  entryNode: string | undefined;
}

export async function runWave({ sim, client, workerPids, names, spreadOver, timings, entryNode }: WaveInput): Promise<WaveResult> {
  await sim.control('DELETE', '/_sim/requests');
  await sim.control('DELETE', '/_sim/capacity');
  const timelines = new DaemonTimelines();
  const sampler = sampleCapacity(sim, timelines);
  const pids = [sim.child.pid, ...workerPids];
  const cpuBefore = pids.map(cpuSeconds);
  const loadBefore = loadavg()[0] ?? 0;
  const startedAt = Date.now();
  let views;
  try {
    const nodeOf = (i: number): { node?: string } => (spreadOver.length === 0 ? {} : { node: spreadOver[i % spreadOver.length] });
    const ids = await Promise.all(names.map(async (name, i) => (await client.createVm({ name, uid: `uid-${name}`, ...nodeOf(i) })).jobId));
    views = await Promise.all(ids.map((id) => client.waitForJob(id, { timeoutMs: 600_000 })));
  } finally {
    await sampler.stop();
  }
  const seconds = (Date.now() - startedAt) / 1000;
  const cpu = pids.map((pid, i) => cpuSeconds(pid) - (cpuBefore[i] ?? 0));
  const capacity = await sim.control<Capacity>('GET', '/_sim/capacity');
  timelines.add(capacity);
  const requests = (await sim.control<{ requests: SimRequest[] }>('GET', '/_sim/requests')).requests;

  const creates = names.length;
  const done = views.filter((v) => v.state === 'completed' && v.finishedAt !== undefined);
  const addressSeconds = done.map((v) => (Date.parse(v.finishedAt as string) - Date.parse(v.createdAt)) / 1000);
  const floor = floorSeconds(timings);
  const p95 = percentile(addressSeconds, 95);
  const agent = requests.filter(isAgentCall);
  const nodes: NodeRow[] = Object.entries(capacity.nodes).map(([node, pools]) => {
    const busiest = timelines.busiest(node, DAEMON_WORKERS);
    return {
      node,
      daemonWorkerSeconds: pools.pvedaemon.busyWorkerSeconds,
      daemonWorkerSecondsRealHost: pools.pvedaemon.busyWorkerSeconds / timings.timeScale,
      daemonShare: pools.pvedaemon.busyWorkerSeconds / (DAEMON_WORKERS * seconds),
      peakBusy: busiest.busy,
      peakInProgress: pools.pvedaemon.peakInProgress,
      peakAtMs: busiest.at === undefined ? undefined : busiest.at - startedAt,
      msAllBusy: busiest.msAtLeast,
      longestWaitMs: pools.pvedaemon.longestWaitMs,
      answers596: pools.pveproxy.timedOut596 + pools.pvedaemon.timedOut596,
    };
  });
  const windowMs = AGENT_HOLD_SECONDS * 1000 * timings.timeScale + timelines.bucketMs;
  const fullMoments = nodes
    .filter((n) => n.peakBusy >= DAEMON_WORKERS && n.peakAtMs !== undefined)
    .map((n) => {
      const at = startedAt + (n.peakAtMs as number);
      return { node: n.node, atMs: n.peakAtMs as number, arrivedBefore: arrivedBefore(requests, n.node, entryNode, at, windowMs, timelines.bucketMs) };
    });
  const answers596 = Math.max(requests.filter((r) => r.status === 596).length, nodes.reduce((sum, n) => sum + n.answers596, 0));
  return {
    creates,
    failed: views.filter((v) => v.state !== 'completed').map((v) => `${v.id}: ${v.state} ${v.failedReason ?? ''}`),
    seconds,
    nodes,
    figures: {
      answers596,
      peakBusyDaemon: Math.max(0, ...nodes.map((n) => Math.max(n.peakBusy, n.peakInProgress))),
      notRunningPerCreate: agent.filter((r) => r.status === 500).length / creates,
      p95OverFloor: p95 / floor,
      callsPerCreate: requests.length / creates,
    },
    agentCallsPerCreate: agent.length / creates,
    retriedJobs: views.filter((v) => v.attemptsMade > 1).length,
    p50Seconds: percentile(addressSeconds, 50),
    p95Seconds: p95,
    floorSeconds: floor,
    callsByRoute: callsByRoute(requests, creates),
    cpu: { simSeconds: cpu[0] ?? 0, workerSeconds: cpu.slice(1).reduce((a, b) => a + b, 0), loadBefore, loadAfter: loadavg()[0] ?? 0 },
    fullMoments,
    vmsByNode: countBy(done.map((v) => (v.job === 'create' && v.result !== undefined && 'node' in v.result ? String(v.result.node) : '?'))),
    trace: { startedAt, requests, jobs: views },
  };
}
