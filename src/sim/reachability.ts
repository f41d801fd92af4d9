// A simulated cluster taken offline and back (SPEC 32): offline closes
// every node's listener and ends its open connections, so a client's
// connection is refused as at a cluster that cannot be reached; back
// listens again on the same ports, with the same simulator behind them
// (its VMs, tasks and guests went on meanwhile, as a cluster cut off from
// the service does). Tests call it in-process; POST /_sim/offline takes
// the cluster away for a given time (control.ts).
import type { Logger } from '../log.js';

/** One node's pveproxy listener (server.ts). */
export interface NodeListener {
  readonly node: string;
  readonly port: number;
  /** Stops listening and ends every open connection; resolves at once when not listening. */
  close(): Promise<void>;
  /** Listens again on its host and port. */
  listen(): Promise<void>;
}

/** How long `online()` retries a port another socket holds for the moment, and how often. */
const RELISTEN_TRIES_MS = 10_000;
const RELISTEN_EVERY_MS = 100;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class SimReachability {
  private away = false;
  private ended = false;
  private backTimer: NodeJS.Timeout | undefined;
  /** Offline and online run one at a time, in call order. */
  private changing: Promise<void> = Promise.resolve();

  constructor(
    private readonly listeners: readonly NodeListener[],
    private readonly logger: Logger,
  ) {}

  isOffline(): boolean {
    return this.away;
  }

  /** Closes every node's listener; stays so until online(). A timed outage's return is called off. */
  offline(): Promise<void> {
    this.cancelReturn();
    return this.change(async () => {
      if (this.away || this.ended) return;
      this.away = true;
      await Promise.all(this.listeners.map((listener) => listener.close()));
    });
  }

  /** Listens again on every node's port; a port still held by another socket is retried for a while, then the error names it. */
  online(): Promise<void> {
    this.cancelReturn();
    return this.change(async () => {
      if (!this.away || this.ended) return;
      for (const listener of this.listeners) await relisten(listener);
      this.away = false;
    });
  }

  /** Offline now, back after `ms` of wall time (not scaled by timeScale); resolves once offline, with when it comes back. */
  async offlineFor(ms: number): Promise<{ backAt: Date }> {
    await this.offline();
    const backAt = new Date(Date.now() + ms);
    this.backTimer = setTimeout(() => {
      this.backTimer = undefined;
      this.online().catch((err: unknown) => this.logger.error({ err }, `the simulator could not listen again after its outage: ${err instanceof Error ? err.message : String(err)}`));
    }, ms);
    this.backTimer.unref();
    return { backAt };
  }

  /** The simulator's close: no return after it. */
  end(): void {
    this.cancelReturn();
    this.ended = true;
  }

  private cancelReturn(): void {
    clearTimeout(this.backTimer);
    this.backTimer = undefined;
  }

  private change(step: () => Promise<void>): Promise<void> {
    const next = this.changing.then(step, step);
    this.changing = next.catch(() => undefined);
    return next;
  }
}

async function relisten(listener: NodeListener): Promise<void> {
  const deadline = Date.now() + RELISTEN_TRIES_MS;
  for (;;) {
    try {
      await listener.listen();
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EADDRINUSE' || Date.now() > deadline) {
        throw new Error(`node ${listener.node}: cannot listen on port ${listener.port} again (${code ?? String(err)})`, { cause: err });
      }
      await sleep(RELISTEN_EVERY_MS);
    }
  }
}
