// Proxmox as it costs (SPEC 28): every node runs pveproxy and pvedaemon,
// `sim.proxyWorkers` and `sim.daemonWorkers` workers each (3 on a real
// host: pve-manager PVE/Service/pveproxy.pm and pvedaemon.pm). A call
// enters the pveproxy of the node whose URL the client used and holds one
// of its workers for the parse, auth and proxy step; a call for another
// node (`proxyto => 'node'`) is proxied to that node's pveproxy
// (pve-http-server AnyEvent.pm proxy_request, HTTPServer.pm 176-206); a
// method registered `protected => 1` then runs in that node's pvedaemon,
// the rest in its pveproxy. Which is which is read from the Perl modules
// by scripts/protected-methods.ts into vendor/pve-api/protected.json.
//
// Each leg holds a worker for its cost, scaled by timeScale like every
// simulated duration: `requestCostMs` for a proxy step; for the handler,
// `requestCostMs` plus `requestCostPerKibMs` per KiB of answer, once more
// per running VM whose QMP it asked, plus what the handler reports it
// waited (a guest-ping timeout, an upload's SSH commands). A proxied call
// not answered 30 s after the entry pveproxy proxied it (waiting or
// running downstream) ends in 596 `Connection timed out` (serve()).
import { readFileSync } from 'node:fs';
import { bareError } from './answer-error.js';
import { RawJson, WithAttributes } from './http-io.js';
import { vendorApiFile } from './schema.js';
import { WaitTimedOut, WorkerPool, type Arrival, type Lease, type PoolCounters } from './worker-pool.js';

export type Daemon = 'pveproxy' | 'pvedaemon';

/** pveproxy's proxy timeout (AnyEvent.pm 835), before timeScale. */
export const PROXY_TIMEOUT_SECONDS = 30;
/** The timeline's bucket before timeScale, and how many are kept (5 simulated minutes). */
const BUCKET_SECONDS = 0.1;
const KEPT_BUCKETS = 3000;
/**
 * An upload for another node: the entry node's pvedaemon runs `ssh <node>
 * pvesm status` and `ssh <node> mkdir` before its task starts (pve-storage
 * Status.pm 637-669), 0.5 s each before timeScale (unverified: a guess at
 * an SSH connection plus a Perl CLI start).
 */
export const REMOTE_SSH_SECONDS: Readonly<Record<string, number>> = { 'POST /nodes/{node}/storage/{storage}/upload': 2 * 0.5 };

export interface DaemonModelOptions {
  nodes: string[];
  proxyWorkers: number;
  daemonWorkers: number;
  /** One call's base cost before timeScale (ms). */
  costMs: number;
  /** Added per KiB of a handler's answer before timeScale (ms). */
  costPerKibMs: number;
  timeScale: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Where a call runs, known before it runs. */
export interface CallRoute {
  /** The node whose pveproxy the client connected to. */
  entryNode: string;
  /** `METHOD /path/template` as the schema has it; undefined for an unknown path. */
  routeKey?: string;
  /** The path's `{node}`, if any. */
  pathNode?: string;
  /** The path's node is offline: the entry pveproxy answers 595 itself. */
  pathNodeOffline?: boolean;
}

/** What a handler did beyond answering, read once it has answered (or thrown). */
export interface HandlerWork {
  /** Running VMs whose QMP it asked: each costs a call's base once more. */
  qmpVms: number;
  /** Simulated seconds it waited while holding its worker (before timeScale). */
  heldSeconds: number;
}

export interface CapacityView {
  proxyWorkers: number;
  daemonWorkers: number;
  nodes: Record<string, Record<Daemon, PoolCounters>>;
}

interface RouteTable {
  protected: Set<string>;
  notProxied: Set<string>;
  known: Set<string>;
}

let routeTable: RouteTable | undefined;

function loadRouteTable(): RouteTable {
  const file = JSON.parse(readFileSync(vendorApiFile('protected.json'), 'utf8')) as { protected: string[]; unprotected: string[]; notProxied: string[] };
  return { protected: new Set(file.protected), notProxied: new Set(file.notProxied), known: new Set([...file.protected, ...file.unprotected]) };
}

/** Whether the Perl modules the table was read from define the method at all. */
export function isKnownRoute(routeKey: string): boolean {
  return (routeTable ??= loadRouteTable()).known.has(routeKey);
}

/** Whether a method is registered `protected => 1` (runs in pvedaemon). */
export function isProtected(routeKey: string): boolean {
  return (routeTable ??= loadRouteTable()).protected.has(routeKey);
}

/** Whether a method with `{node}` in its path runs there (`proxyto => 'node'`); upload does not. */
export function isProxiedToNode(routeKey: string): boolean {
  return routeKey.includes('{node}') && !(routeTable ??= loadRouteTable()).notProxied.has(routeKey);
}

/** The answer's size as sent (`{"data":...}`), in bytes; errors count as small. */
export function answerBytes(data: unknown): number {
  if (data instanceof RawJson) return Buffer.byteLength(data.json) + '{"data":}'.length;
  const body = data instanceof WithAttributes ? { ...data.attributes, data: data.data } : { data };
  return Buffer.byteLength(JSON.stringify(body) ?? '');
}

/** Unref'd: a worker still held after its 596 was answered, or after close, keeps no process alive. */
const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** What pveproxy passes on when AnyEvent::HTTP's timeout fires (`fixtures/err_proxy_596.json`). */
function proxyTimedOut(): Error {
  return bareError(596, 'Connection timed out');
}

export class DaemonModel {
  private readonly pools = new Map<string, Record<Daemon, WorkerPool>>();
  private readonly now: () => number;
  private readonly timeoutMs: number;

  constructor(private readonly options: DaemonModelOptions) {
    const now = options.now ?? (() => performance.timeOrigin + performance.now());
    const sleep = options.sleep ?? realSleep;
    const scale = options.timeScale;
    this.now = now;
    this.timeoutMs = PROXY_TIMEOUT_SECONDS * 1000 * scale;
    const pool = (workers: number): WorkerPool =>
      new WorkerPool({ workers, bucketMs: BUCKET_SECONDS * 1000 * scale, keptBuckets: KEPT_BUCKETS, now, sleep });
    for (const node of options.nodes) this.pools.set(node, { pveproxy: pool(options.proxyWorkers), pvedaemon: pool(options.daemonWorkers) });
  }

  /** Where the handler runs: the path's node when proxied there (and known and up), else the entry node; and in which daemon. */
  placement(call: CallRoute): { node: string; daemon: Daemon } {
    const key = call.routeKey;
    if (call.pathNodeOffline === true) return { node: call.entryNode, daemon: 'pveproxy' };
    const proxied = key !== undefined && call.pathNode !== undefined && this.pools.has(call.pathNode) && isProxiedToNode(key);
    const node = proxied ? (call.pathNode as string) : call.entryNode;
    return { node, daemon: key !== undefined && isProtected(key) ? 'pvedaemon' : 'pveproxy' };
  }

  /**
   * The entry pveproxy's step, the legs to the handler's daemon, then
   * `work` there, holding that worker for the handler's cost.
   *
   * A call the entry pveproxy proxies (to another node, or to pvedaemon)
   * goes through AnyEvent::HTTP with `timeout => 30`, an inactivity
   * timeout: nothing comes back while the call waits downstream or its
   * handler runs, so 30 s (scaled) after the entry step ended it answers
   * 596, whether the call was still waiting (it never runs) or already
   * running (it runs to its end, holding its worker). A call the entry
   * pveproxy runs itself has no such timer.
   */
  async serve<T>(call: CallRoute, work: () => Promise<T>, workDone: () => HandlerWork): Promise<T> {
    const target = this.placement(call);
    const step = this.scaled(this.options.costMs);
    let lease = await this.enter(call.entryNode, 'pveproxy', {});
    if (target.node !== call.entryNode || target.daemon === 'pvedaemon') {
      let at = lease.start + step;
      await lease.finish(step);
      const deadline = at + this.timeoutMs;
      if (target.node !== call.entryNode) {
        lease = await this.enter(target.node, 'pveproxy', { at, deadline });
        if (target.daemon === 'pvedaemon') {
          at = lease.start + step;
          if ((await lease.finish(step)).timedOut) throw proxyTimedOut();
          lease = await this.enter(target.node, 'pvedaemon', { at, deadline });
        }
      } else {
        lease = await this.enter(call.entryNode, 'pvedaemon', { at, deadline });
      }
    }
    let outcome: { value: T } | { error: unknown };
    // An error answer is small: it costs the base and what the handler waited.
    let bytes = 0;
    try {
      const value = await work();
      bytes = answerBytes(value);
      outcome = { value };
    } catch (error) {
      outcome = { error };
    }
    const { timedOut } = await lease.finish(this.handlerCost(bytes, workDone(), this.sshSeconds(call)));
    if (timedOut) throw proxyTimedOut();
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }

  counters(): CapacityView {
    const nodes: CapacityView['nodes'] = {};
    for (const [node, pools] of this.pools) nodes[node] = { pveproxy: pools.pveproxy.counters(), pvedaemon: pools.pvedaemon.counters() };
    return { proxyWorkers: this.options.proxyWorkers, daemonWorkers: this.options.daemonWorkers, nodes };
  }

  resetCounters(): void {
    for (const pools of this.pools.values()) for (const pool of Object.values(pools)) pool.resetCounters();
  }

  private async enter(node: string, daemon: Daemon, arrival: Arrival): Promise<Lease> {
    const pool = this.pools.get(node)?.[daemon];
    if (pool === undefined) return { start: arrival.at ?? this.now(), finish: () => Promise.resolve({ timedOut: false }) };
    try {
      return await pool.acquire(arrival);
    } catch (err) {
      if (err instanceof WaitTimedOut) throw proxyTimedOut();
      throw err;
    }
  }

  private handlerCost(bytes: number, work: HandlerWork, sshSeconds: number): number {
    const { costMs, costPerKibMs } = this.options;
    return this.scaled(costMs * (1 + work.qmpVms) + costPerKibMs * (bytes / 1024) + (work.heldSeconds + sshSeconds) * 1000);
  }

  /** A method run in the entry node for another node's sake pays its SSH commands. */
  private sshSeconds(call: CallRoute): number {
    if (call.routeKey === undefined || call.pathNode === undefined || call.pathNode === call.entryNode || !this.pools.has(call.pathNode)) return 0;
    return REMOTE_SSH_SECONDS[call.routeKey] ?? 0;
  }

  private scaled(ms: number): number {
    return ms * this.options.timeScale;
  }
}
