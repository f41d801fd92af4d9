// pveproxy's capacity (SPEC 26). pveproxy runs `max_workers => 3` worker
// processes (pve-manager PVE/Service/pveproxy.pm), and each runs an API
// handler synchronously inside its event loop (pve-http-server
// AnyEvent.pm handle_api2_request -> rest_handler): a real host serves a
// few requests at a time and the rest wait. The simulator models that as
// `workers` slots; a request holds one for `costMs` plus `costPerKibMs`
// per KiB of its answer (a /cluster/resources of 10,000 VMs costs more
// than a config read), plus `costMs` for each running VM whose QMP the
// handler asked (a `GET /nodes/{node}/qemu?full=1` asks every running VM
// of the node, qemu-server's vmstatus), scaled by timeScale like every
// simulated duration; requests beyond the slots wait in arrival order.
// 0 workers: no model.
//
// Time is kept on a virtual schedule: a slot's next request starts when
// its last one ended on that schedule, not when the timer that ended it
// fired, so costs below a timer's 1 ms resolution still add up (N
// requests of C ms on one slot span N*C ms).
import { RawJson, WithAttributes } from './http-io.js';

export interface CapacityOptions {
  /** Requests served at a time; 0 turns the model off. */
  workers: number;
  /** Cost of one request before timeScale (ms). */
  costMs: number;
  /** Added cost per KiB of answer before timeScale (ms). */
  costPerKibMs: number;
  timeScale: number;
  /** Clock in ms (fractions allowed); performance.now by default. */
  now?: () => number;
  /** How a slot is held until its request's end; tests inject one that returns at once. */
  sleep?: (ms: number) => Promise<void>;
}

/** What GET /_sim/capacity shows. Times are on the model's schedule, in wall ms (after timeScale). */
export interface CapacityCounters {
  /** 0: the model is off and nothing is counted. */
  workers: number;
  inProgress: number;
  waiting: number;
  peakInProgress: number;
  peakWaiting: number;
  served: number;
  /** Summed over served requests: from arrival to the start of their service. */
  waitedMs: number;
  /** Summed over served requests: the cost charged. */
  busyMs: number;
}

interface Waiter {
  /** Called with the virtual time the slot handed over became free. */
  take(freeAt: number): void;
}

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The answer's size as sent (`{"data":...}`), in bytes; errors count as small. */
export function answerBytes(data: unknown): number {
  if (data instanceof RawJson) return Buffer.byteLength(data.json) + '{"data":}'.length;
  const body = data instanceof WithAttributes ? { ...data.attributes, data: data.data } : { data };
  return Buffer.byteLength(JSON.stringify(body) ?? '');
}

export class ApiCapacity {
  /** Free slots, each as the virtual time its last request ended. */
  private readonly free: number[];
  private readonly queue: Waiter[] = [];
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private counts: Omit<CapacityCounters, 'workers'> = ApiCapacity.zero();

  constructor(private readonly options: CapacityOptions) {
    this.free = Array.from({ length: Math.max(0, options.workers) }, () => -Infinity);
    this.now = options.now ?? (() => performance.now());
    this.sleep = options.sleep ?? realSleep;
  }

  get enabled(): boolean {
    return this.options.workers > 0;
  }

  /**
   * Runs `work` when a slot is free and holds the slot for its cost; with the model off, at once.
   * `qmpVmsOf` (read once the work ended): the running VMs whose QMP it asked, each charged one request's cost.
   */
  async serve<T>(work: () => Promise<T>, bytesOf: (value: T) => number = answerBytes, qmpVmsOf: () => number = () => 0): Promise<T> {
    if (!this.enabled) return work();
    const arrivedAt = this.now();
    const freeAt = await this.acquire();
    const start = Math.max(arrivedAt, freeAt);
    this.counts.inProgress += 1;
    this.counts.peakInProgress = Math.max(this.counts.peakInProgress, this.counts.inProgress);
    let bytes = 0;
    let qmpVms = 0;
    try {
      const value = await work();
      bytes = bytesOf(value);
      qmpVms = qmpVmsOf();
      return value;
    } finally {
      // An error answer is small: it costs the base alone.
      const end = start + this.cost(bytes, qmpVms);
      this.counts.served += 1;
      this.counts.waitedMs += start - arrivedAt;
      this.counts.busyMs += end - start;
      const left = end - this.now();
      if (left > 0) await this.sleep(left);
      this.counts.inProgress -= 1;
      this.release(end);
    }
  }

  counters(): CapacityCounters {
    return { workers: this.options.workers, ...this.counts };
  }

  /** Clears the totals and peaks (DELETE /_sim/capacity); requests in flight go on. */
  resetCounters(): void {
    const { inProgress, waiting } = this.counts;
    this.counts = { ...ApiCapacity.zero(), inProgress, waiting, peakInProgress: inProgress, peakWaiting: waiting };
  }

  private cost(bytes: number, qmpVms: number): number {
    const ms = this.options.costMs * (1 + qmpVms) + this.options.costPerKibMs * (bytes / 1024);
    return ms * this.options.timeScale;
  }

  private acquire(): Promise<number> {
    const slot = this.free.pop();
    if (slot !== undefined) return Promise.resolve(slot);
    this.counts.waiting += 1;
    this.counts.peakWaiting = Math.max(this.counts.peakWaiting, this.counts.waiting);
    return new Promise((resolve) => this.queue.push({ take: resolve }));
  }

  /** The slot goes to the first waiter, as it is (its virtual end), or back to the free ones. */
  private release(end: number): void {
    const next = this.queue.shift();
    if (next === undefined) {
      this.free.push(end);
      return;
    }
    this.counts.waiting -= 1;
    next.take(end);
  }

  private static zero(): Omit<CapacityCounters, 'workers'> {
    return { inProgress: 0, waiting: 0, peakInProgress: 0, peakWaiting: 0, served: 0, waitedMs: 0, busyMs: 0 };
  }
}
