// What bench/boot-storm.ts reads out of one wave (issue 27, SPEC 28): the
// simulator's request log and its /_sim/capacity samples turned into the
// figures per node and overall, and the done-when's bars. Pure functions:
// no process, no network.
import { ROUTES, type Route } from '../src/proxmox/routes.js';

export interface SimRequest {
  /** Arrival at the simulator (ISO, ms). */
  at: string;
  method: string;
  path: string;
  params: Record<string, string>;
  status: number;
}

export interface PoolCounters {
  peakInProgress: number;
  busyWorkerSeconds: number;
  longestWaitMs: number;
  meanWaitMs: number;
  timedOut596: number;
  timeline: { bucketMs: number; buckets: { at: number; busy: number }[] };
}

export interface Capacity {
  nodes: Record<string, { pveproxy: PoolCounters; pvedaemon: PoolCounters }>;
}

/** The busiest bucket of each node's pvedaemon over a wave: the highest `busy` per `at`, merged from every sample. */
export class DaemonTimelines {
  private readonly byNode = new Map<string, Map<number, number>>();
  bucketMs = 0;

  /** Adds one /_sim/capacity answer; the simulator keeps only its last 3000 buckets, so a long wave needs several. */
  add(capacity: Capacity): void {
    for (const [node, pools] of Object.entries(capacity.nodes)) {
      const buckets = this.byNode.get(node) ?? new Map<number, number>();
      this.byNode.set(node, buckets);
      this.bucketMs = pools.pvedaemon.timeline.bucketMs;
      for (const { at, busy } of pools.pvedaemon.timeline.buckets) buckets.set(at, Math.max(busy, buckets.get(at) ?? 0));
    }
  }

  /** The most busy workers, when first (epoch ms), and how long (ms) the node spent at `atLeast` or more. */
  busiest(node: string, atLeast: number): { busy: number; at: number | undefined; msAtLeast: number } {
    let busy = 0;
    let at: number | undefined;
    let count = 0;
    for (const [bucketAt, value] of [...(this.byNode.get(node) ?? new Map<number, number>())].sort((a, b) => a[0] - b[0])) {
      if (value > busy) [busy, at] = [value, bucketAt];
      if (value >= atLeast) count += 1;
    }
    return { busy, at, msAtLeast: count * this.bucketMs };
  }
}

const API = '/api2/json';

/** Each route's template as a pattern over the request's path, the more specific (longer) first. */
const MATCHERS: { name: string; route: Route; pattern: RegExp }[] = Object.entries(ROUTES)
  .map(([name, route]) => ({ name, route, pattern: new RegExp(`^${API}${route.template.replace(/\{[a-z]+\}/g, '[^/]+')}$`) }))
  .sort((a, b) => b.route.template.length - a.route.template.length);

export function routeOf(r: SimRequest): { name: string; route: Route } | undefined {
  return MATCHERS.find((m) => m.route.method === r.method && m.pattern.test(r.path));
}

/**
 * The node whose pvedaemon runs a protected call, as the simulator places
 * it: its `{node}`, or for an upload (no proxyto) the node whose URL it
 * entered (`entryNode`; undefined: every node has its own URL, so its target);
 * undefined for a call that runs in pveproxy.
 */
export function daemonNodeOf(r: SimRequest, entryNode: string | undefined): string | undefined {
  const found = routeOf(r);
  if (found === undefined || !found.route.protected) return undefined;
  const pathNode = /\/nodes\/([^/]+)\//.exec(r.path)?.[1];
  return found.route.proxyto ? pathNode : (entryNode ?? pathNode);
}

export function isAgentCall(r: SimRequest): boolean {
  return routeOf(r)?.name === 'agentInterfaces';
}

/** `GET agentInterfaces 500`-style label of a call. */
export function callLabel(r: SimRequest): string {
  return `${r.method} ${routeOf(r)?.name ?? r.path} ${r.status}`;
}

/** Calls per create by seam method, most first. */
export function callsByRoute(requests: SimRequest[], creates: number): Record<string, number> {
  const counts = new Map<string, number>();
  for (const r of requests) {
    const name = routeOf(r)?.name ?? `${r.method} ${r.path}`;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]).map(([name, n]) => [name, Number((n / creates).toFixed(2))]));
}

/** The p-th percentile (0..100) by nearest rank; NaN for none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/**
 * The floor of one create (issue 27): the step times of F16 and F21 as the
 * simulator runs them one after the other, the clone, then the upload,
 * resize and start tasks, then the guest agent's boot counted from the
 * start task's end; in wall seconds after timeScale.
 */
export interface SimTimings {
  cloneSeconds: number;
  taskSeconds: number;
  agentSeconds: number;
  timeScale: number;
}

export const TASKS_PER_CREATE = ['upload', 'resize', 'start'] as const;

export function floorSeconds(t: SimTimings): number {
  return (t.cloneSeconds + TASKS_PER_CREATE.length * t.taskSeconds + t.agentSeconds) * t.timeScale;
}

export interface Bar {
  name: string;
  value: number;
  limit: string;
  met: boolean;
}

export interface WaveFigures {
  answers596: number;
  peakBusyDaemon: number;
  notRunningPerCreate: number;
  p95OverFloor: number;
  callsPerCreate: number;
}

/** The done-when of issue 27, judged on one wave; `learned` picks the calls bar (15 once learned, 20 cold). */
export function bars(f: WaveFigures, learned: boolean): Bar[] {
  const callsLimit = learned ? 15 : 20;
  return [
    { name: 'answers of 596', value: f.answers596, limit: '= 0', met: f.answers596 === 0 },
    { name: 'most pvedaemon workers busy on a node', value: f.peakBusyDaemon, limit: '<= 2 of 3', met: f.peakBusyDaemon <= 2 },
    { name: 'agent "not running" answers per create', value: f.notRunningPerCreate, limit: '<= 1', met: f.notRunningPerCreate <= 1 },
    { name: 'p95 accept-to-address / floor', value: f.p95OverFloor, limit: '<= 1.3', met: f.p95OverFloor <= 1.3 },
    { name: `Proxmox calls per create (${learned ? 'learned' : 'cold'})`, value: f.callsPerCreate, limit: `<= ${callsLimit}`, met: f.callsPerCreate <= callsLimit },
  ];
}
