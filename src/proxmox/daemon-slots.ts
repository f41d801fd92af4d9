// The pvedaemon slots (SPEC 28) as one worker process uses them: a
// protected call asks take(node) and goes once the node's sorted set in
// Redis (daemon-slot-script.ts) has room, so every process together keeps
// at most `slotsPerNode` protected calls in flight per node. The
// process's calls for one node stand in one line: only the first asks
// Redis, and sleeps until a slot may be free (an answer of this process
// wakes it sooner); the others follow without asking. A job's signal
// takes its call out of the line at once. When Redis does not answer, the
// process keeps its own count of `slotsPerNode` per node (fail open, but
// bounded per process, as the request budget does; docs/decisions.md).
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.js';
import type { DaemonSlotMetrics } from '../metrics.js';
import type { RedisClient } from '../redis-script.js';
import { daemonSlotKey, freeDaemonSlot, takeDaemonSlot } from './daemon-slot-script.js';
import type { SlotShape } from './daemon-slot-script.js';

/** One taken slot, told what became of its call. Each of answered and abandoned frees it once; later calls do nothing. */
export interface DaemonSlot {
  /** The request left for Proxmox now: a call abandoned later counts its worst case from here. */
  sent(): void;
  /** Proxmox answered: pvedaemon is done with the call, the slot is free now. */
  answered(): void;
  /**
   * No answer came (aborted, timed out, 596): pvedaemon may still be
   * running it, so the slot stays taken until `worstCaseMs` after the
   * send; a call never sent frees it at once.
   */
  abandoned(worstCaseMs: number): void;
}

export interface DaemonSlots {
  /** Resolves with a slot on `node` for the call named `call`; rejects with the signal's reason as soon as it aborts. */
  take(node: string, call: string, signal?: AbortSignal): Promise<DaemonSlot>;
  /** Closes the slots' Redis connection; calls after it count per process. */
  close(): Promise<void>;
}

export interface DaemonSlotsOptions {
  /** The slots' own connection, closed with them; its commands must end within a bound when Redis is down (commandTimeout). */
  redis: RedisClient;
  prefix: string;
  /** Protected calls in flight per node across every process, at least 1. */
  slotsPerNode: number;
  /** Longest a slot stays taken if its process never frees it (a worker that dies mid-call). */
  holdMs: number;
  logger: Logger;
  metrics?: DaemonSlotMetrics;
  /** How soon the first in line asks again while every slot is taken (default 25 ms; an answer of this process wakes it sooner). */
  pollMs?: number;
  /** After Redis failed, calls count per process this long before Redis is asked again (default 5 s). */
  redisRetryMs?: number;
  /** At most one warn line this often while Redis fails (default 60 s). */
  warnEveryMs?: number;
}

interface Waiter {
  call: string;
  started: number;
  held: boolean;
  resolve(slot: DaemonSlot): void;
  reject(reason: unknown): void;
  detach(): void;
}

/** One node's line in this process, and the slots it holds while Redis does not answer. */
interface NodeLine {
  waiters: Waiter[];
  serving: boolean;
  wake: (() => void) | undefined;
  localHeld: number;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function createDaemonSlots(options: DaemonSlotsOptions): DaemonSlots {
  const { redis, logger, metrics, slotsPerNode } = options;
  if (!Number.isInteger(slotsPerNode) || slotsPerNode < 1) {
    throw new RangeError(`daemonSlotsPerNode: must be a whole number of at least 1 here (got ${slotsPerNode})`);
  }
  const pollMs = options.pollMs ?? 25;
  const shape: SlotShape = { limit: slotsPerNode, holdUs: options.holdMs * 1000, pollUs: pollMs * 1000 };
  const redisRetryMs = options.redisRetryMs ?? 5_000;
  const warnEveryMs = options.warnEveryMs ?? 60_000;
  const lines = new Map<string, NodeLine>();
  let closed = false;
  let askRedisAt = 0;
  let warnedAt = Number.NEGATIVE_INFINITY;

  function lineOf(node: string): NodeLine {
    let line = lines.get(node);
    if (line === undefined) {
      line = { waiters: [], serving: false, wake: undefined, localHeld: 0 };
      lines.set(node, line);
    }
    return line;
  }

  function nap(line: NodeLine, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        line.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      line.wake = done;
    });
  }

  function redisFailed(err: unknown): void {
    askRedisAt = Date.now() + redisRetryMs;
    if (Date.now() - warnedAt < warnEveryMs) return;
    warnedAt = Date.now();
    logger.warn(
      { err: messageOf(err), slotsPerNode },
      'Proxmox daemon slots: Redis did not answer; this worker keeps its own protected calls to proxmox.daemonSlotsPerNode per node until it does',
    );
  }

  /** A slot whose freeing goes to `free(afterMs)` once, and wakes the node's line when it is free. */
  function slotOf(node: string, line: NodeLine, free: (afterMs: number) => Promise<void>): DaemonSlot {
    let sentAt: number | undefined;
    let done = false;
    metrics?.daemonSlotHeld(node, 1);
    const release = (afterMs: number): void => {
      if (done) return;
      done = true;
      const freed = (): void => {
        metrics?.daemonSlotHeld(node, -1);
        line.wake?.();
      };
      free(afterMs).then(
        () => {
          if (afterMs <= 0) freed();
          else setTimeout(freed, afterMs).unref();
        },
        // Unfreed in Redis, the slot comes free at its hold.
        () => freed(),
      );
    };
    return {
      sent() {
        sentAt ??= performance.now();
      },
      answered() {
        release(0);
      },
      abandoned(worstCaseMs) {
        release(sentAt === undefined ? 0 : sentAt + worstCaseMs - performance.now());
      },
    };
  }

  function redisSlot(node: string, line: NodeLine, key: string, id: string): DaemonSlot {
    return slotOf(node, line, (afterMs) => freeDaemonSlot(redis, key, id, afterMs * 1000));
  }

  function localSlot(node: string, line: NodeLine): DaemonSlot {
    line.localHeld += 1;
    return slotOf(node, line, (afterMs) => {
      if (afterMs <= 0) line.localHeld -= 1;
      else setTimeout(() => (line.localHeld -= 1), afterMs).unref();
      return Promise.resolve();
    });
  }

  /** A slot, or the ms to wait before asking again. */
  async function nextSlot(node: string, line: NodeLine): Promise<{ slot: DaemonSlot; local: boolean } | { waitMs: number }> {
    if (!closed && Date.now() >= askRedisAt) {
      const key = daemonSlotKey(options.prefix, node);
      const id = randomUUID();
      try {
        const waitUs = await takeDaemonSlot(redis, key, id, shape);
        return waitUs === 0 ? { slot: redisSlot(node, line, key, id), local: false } : { waitMs: Math.ceil(waitUs / 1000) };
      } catch (err) {
        redisFailed(err);
      }
    }
    return line.localHeld < slotsPerNode ? { slot: localSlot(node, line), local: true } : { waitMs: pollMs };
  }

  function settle(node: string, waiter: Waiter): void {
    waiter.detach();
    metrics?.daemonSlotTaken(node, (performance.now() - waiter.started) / 1000, waiter.held);
  }

  async function serve(node: string, line: NodeLine): Promise<void> {
    if (line.serving) return;
    line.serving = true;
    try {
      while (line.waiters.length > 0) {
        const next = await nextSlot(node, line);
        if ('waitMs' in next) {
          for (const waiter of line.waiters) waiter.held = true;
          await nap(line, next.waitMs);
          continue;
        }
        const first = line.waiters.shift();
        if (first === undefined) {
          // Every caller aborted during the ask: the slot goes unused.
          next.slot.answered();
          continue;
        }
        if (next.local) metrics?.daemonSlotUnavailable();
        settle(node, first);
        first.resolve(next.slot);
      }
    } finally {
      line.serving = false;
    }
  }

  return {
    take(node, call, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      const line = lineOf(node);
      return new Promise<DaemonSlot>((resolve, reject) => {
        const waiter: Waiter = { call, started: performance.now(), held: false, resolve, reject, detach: () => undefined };
        if (signal !== undefined) {
          const onAbort = (): void => {
            const at = line.waiters.indexOf(waiter);
            if (at >= 0) line.waiters.splice(at, 1);
            settle(node, waiter);
            reject(signal.reason as Error);
          };
          signal.addEventListener('abort', onAbort, { once: true });
          waiter.detach = () => signal.removeEventListener('abort', onAbort);
        }
        line.waiters.push(waiter);
        void serve(node, line);
      });
    },
    close() {
      closed = true;
      redis.disconnect();
      return Promise.resolve();
    },
  };
}
