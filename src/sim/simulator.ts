// The simulated cluster as one object: state, tasks, faults, the request
// log and the clock. The HTTP layer (server.ts) and the handlers work on it.
import type { Config } from '../config/types.js';
import { taskExitOf } from './answer-error.js';
import { DaemonModel } from './daemons.js';
import { Faults } from './faults.js';
import { GuestBoots } from './guest/boots.js';
import { populate } from './population.js';
import type { SimReachability } from './reachability.js';
import { SimState, type SimVm } from './state.js';
import { LingeringSamples, refreshSample, RRD_KEEP_SECONDS, type SampleClock } from './statd.js';
import { storagesFromSpecs, type SimStorageSpec } from './storage-option.js';
import { TaskBook, type SimTask, type TaskOutcome, type TaskOwner } from './tasks.js';

type SimConfig = Config['sim'];

/**
 * The sim.* config keys the simulated cluster reads, meaning what the
 * config schema says of each (src/config/schema.ts); the daemon model's
 * keys (SPEC 28) may be left out, and then that daemon is not modelled.
 */
export interface SimulatorOptions
  extends Pick<SimConfig, 'nodes' | 'vms' | 'timeScale' | 'latencyMs' | 'cloneSeconds' | 'taskSeconds' | 'agentSeconds' | 'statdSeconds'>,
    Partial<Pick<SimConfig, 'proxyWorkers' | 'daemonWorkers' | 'requestCostMs' | 'requestCostPerKibMs' | 'guestPorts'>> {
  /** Accepted API tokens, `user@realm!id=secret`. */
  tokens: string[];
  /** The cluster's name in `GET /cluster/status` (SPEC 32: each simulated cluster its own); `pv1` by default. */
  clusterName?: string;
  /** The node of the main URL (SPEC 16, 28). The first node by default. */
  entryNode?: string;
  /** The clock, in ms; Date.now by default. */
  now?: () => number;
  /**
   * Every node's network bridges for `GET /nodes/{node}/network` (SPEC 33).
   * Absent: vmbr0 on every node, VLAN-aware (handlers/network.ts).
   */
  bridges?: SimBridge[];
  /**
   * Every node's storages (SPEC 33), replacing the default set: a node
   * has exactly the ones listed for it (storage-option.ts).
   */
  storages?: SimStorageSpec[];
}

/** A bridge of a node's /etc/network/interfaces, as `GET /nodes/{node}/network` lists it. */
export interface SimBridge {
  node: string;
  iface: string;
  /** `bridge_vlan_aware` (a Linux bridge), or an OVS bridge, which always carries tags. */
  vlanAware: boolean;
}

export interface RecordedRequest {
  at: string;
  method: string;
  path: string;
  /** Parameter names and values (query, form, multipart fields); never a header, never file bytes. */
  params: Record<string, string>;
  status: number;
}

export interface TaskSpec {
  node: string;
  type: string;
  id: string;
  owner: TaskOwner;
  /** Duration before timeScale and the slow-task factor. */
  seconds: number;
  /** The task waits until then before its own duration starts (a lock held by another task, F3). */
  notBefore?: number;
  runningLog?: string[];
  /** The effect; throw to end the task (a SimAnswerError that is no plain die ends it `<code> <text>`, audit 4c). */
  run: (endAt: number) => string[];
  /** Undo when the task fails (a fault or a throw). */
  onFail?: (endAt: number) => void;
}

const KEPT_REQUESTS = 100_000;

export class Simulator {
  readonly state: SimState;
  readonly tasks = new TaskBook();
  readonly faults = new Faults();
  readonly daemons: DaemonModel;
  readonly requests: RecordedRequest[] = [];
  /** Destroyed VMs' last pvestatd samples, kept by VMID (audit 3.4; statd.ts). */
  readonly lingering = new LingeringSamples();
  /** The guests' boots from their seeds: listeners and phone-home calls (SPEC 29). */
  readonly guests = new GuestBoots(this);
  readonly entryNode: string;
  /** Each node's own pveproxy URL, once the simulator listens (server.ts). */
  nodeUrls: Record<string, string> = {};
  /** Its listeners taken offline and back (SPEC 32), once the simulator listens (server.ts). */
  reachability: SimReachability | undefined;
  /** Called after each recorded request (sim.stateFile saves on it, state-file.ts). */
  onRecord: (() => void) | undefined;
  private readonly clock: () => number;

  constructor(readonly options: SimulatorOptions) {
    if (options.nodes.length === 0) throw new Error('the simulator needs at least one node');
    this.entryNode = options.entryNode ?? (options.nodes[0] as string);
    this.clock = options.now ?? Date.now;
    this.state = this.freshState();
    this.daemons = new DaemonModel({
      nodes: options.nodes,
      proxyWorkers: options.proxyWorkers ?? 0,
      daemonWorkers: options.daemonWorkers ?? 0,
      costMs: options.requestCostMs ?? 0,
      costPerKibMs: options.requestCostPerKibMs ?? 0,
      timeScale: options.timeScale,
    });
  }

  now(): number {
    return this.clock();
  }

  /** Seconds of simulated work as milliseconds of wall time. */
  scaled(seconds: number, factor = 1): number {
    return seconds * 1000 * this.options.timeScale * factor;
  }

  /** When pvestatd last sampled (ms): the start of the current cycle, or now without a cycle. */
  statdSampleAt(at = this.now()): number {
    const period = this.scaled(this.options.statdSeconds);
    return period > 0 ? Math.floor(at / period) * period : at;
  }

  /** The cycle a listing now (or at `at`) sees. */
  statdClock(at = this.now()): SampleClock {
    return { sampleAt: this.statdSampleAt(at), cycles: this.options.statdSeconds > 0 };
  }

  /** How long pmxcfs keeps a destroyed VM's sample, in ms of wall time. */
  get rrdKeepMs(): number {
    return this.scaled(RRD_KEEP_SECONDS);
  }

  /**
   * Removes a VM whose config is gone at `at` (a destroy, a failed clone).
   * With pvestatd's cycles on, its last sample stays at its VMID until
   * pmxcfs drops it (audit 3.4); a new VM there shows it until sampled.
   */
  removeVm(vm: SimVm, at: number): void {
    this.guests.shutdown(vm);
    const clock = this.statdClock(at);
    if (clock.cycles) {
      refreshSample(vm, clock);
      this.lingering.keep(vm, clock.sampleAt);
    }
    this.state.removeVm(vm);
  }

  /** Applies every task that has ended by now. Call before reading state. */
  settle(): void {
    this.tasks.settle(this.now());
  }

  /** The state as a fresh start has it; POST /_sim/reset. */
  reset(): void {
    this.tasks.clear();
    this.guests.close().catch(() => undefined);
    this.faults.replace({});
    this.requests.length = 0;
    this.lingering.clear();
    const fresh = this.freshState();
    this.state.nodes.clear();
    for (const [name, node] of fresh.nodes) this.state.nodes.set(name, node);
    this.state.storageCfg.clear();
    for (const [id, cfg] of fresh.storageCfg) this.state.storageCfg.set(id, cfg);
    for (const vm of [...this.state.allVms()]) this.state.removeVm(vm);
    for (const vm of fresh.allVms()) this.state.addVm(vm);
  }

  record(request: RecordedRequest): void {
    this.requests.push(request);
    // Trimmed in batches, so a long chaos run does not shift the whole log on every request.
    if (this.requests.length > KEPT_REQUESTS * 1.1) this.requests.splice(0, this.requests.length - KEPT_REQUESTS);
    this.onRecord?.();
  }

  /** Starts a task; its effect runs when its time is up (tasks.ts). */
  runTask(spec: TaskSpec): SimTask {
    const now = this.now();
    const startAt = Math.max(now, spec.notBefore ?? now);
    const endAt = startAt + this.scaled(spec.seconds, this.faults.taskFactor);
    const failure = this.faults.takeTaskFailure(spec.type);
    const run = (at: number): TaskOutcome => {
      if (failure !== undefined) {
        spec.onFail?.(at);
        return { exitstatus: failure, log: spec.runningLog ?? [] };
      }
      try {
        return { exitstatus: 'OK', log: spec.run(at) };
      } catch (err) {
        spec.onFail?.(at);
        // What the worker printed before it died stays in its log.
        return { exitstatus: taskExitOf(err), log: spec.runningLog ?? [] };
      }
    };
    return this.tasks.create({ node: spec.node, type: spec.type, id: spec.id, owner: spec.owner, startAt: now, endAt, runningLog: spec.runningLog ?? [], run });
  }

  private freshState(): SimState {
    const storages = this.options.storages === undefined ? undefined : storagesFromSpecs(this.options.nodes, this.options.storages);
    const state = new SimState(this.options.nodes, storages);
    populate(state, this.options.vms, this.now());
    return state;
  }
}
