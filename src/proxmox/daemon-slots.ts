// The pvedaemon slots (SPEC 28) as one worker process uses them: a
// protected call asks take(node) and goes once the node's sorted set in
// Redis (daemon-slot-script.ts) has room, so every process together keeps
// at most `slotsPerNode` protected calls in flight per node. The
// process's calls for one node stand in one line: only the first asks
// Redis, and sleeps until a slot may be free (an answer of this process
// wakes it sooner); the others follow without asking. A job's signal
// takes its call out of the line at once. A slot held in Redis is a
// lease its process renews while the call is pending, so a worker that
// dies frees its slots within `leaseMs` of the end of its calls' worst
// cases. When Redis does not answer, the process keeps its own count of
// `slotsPerNode` per node (fail open, but bounded per process, as the
// request budget does; docs/decisions.md).
import { WakeableNap } from './wakeable-nap.js';
import { redisFailOpen } from './redis-fail-open.js';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.js';
import type { DaemonSlotMetrics } from '../metrics.js';
import type { RedisClient } from '../redis-script.js';
import { daemonSlotKey, holdDaemonSlot, takeDaemonSlot } from './daemon-slot-script.js';
import type { SlotShape } from './daemon-slot-script.js';

/** One taken slot, told what became of its call. Each of answered and abandoned frees it once; later calls do nothing. */
export interface DaemonSlot {
  /** The request left for Proxmox now: a call abandoned later counts its worst case from here. */
  sent(): void;
  /** Proxmox answered: pvedaemon is done with the call, the slot is free now. */
  answered(): void;
  /**
   * No answer came (aborted, timed out, 596): pvedaemon may still be
   * running the call, so the slot stays taken for the call's worst case,
   * counted from its send or from now (`from`); a call never sent frees
   * it at once.
   */
  abandoned(from: 'sent' | 'givenUp'): void;
}

export interface DaemonSlots {
  /**
   * Resolves with a slot on `node` for the call named `call`, whose
   * pvedaemon run takes at most `worstCaseMs`; rejects with the signal's
   * reason as soon as it aborts.
   */
  take(node: string, call: string, worstCaseMs: number, signal?: AbortSignal): Promise<DaemonSlot>;
  /** Closes the slots' Redis connection; calls after it count per process. */
  close(): Promise<void>;
}

export interface DaemonSlotsOptions {
  /** Redis's error in words for the warn line (queue/redis-failure.ts's unreachableReason; the layers keep it out of src/proxmox). */
  redisReason?: (err: unknown) => string | undefined;
  /** The slots' own connection, closed with them; its commands must end within a bound when Redis is down (commandTimeout). */
  redis: RedisClient;
  prefix: string;
  /** Protected calls in flight per node across every process, at least 1. */
  slotsPerNode: number;
  /**
   * How long a slot outlives its process's last renewal (a worker that
   * dies), on top of its call's worst case; renewed every third of it
   * while the call is pending (default 3 s).
   */
  leaseMs?: number;
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
  worstCaseMs: number;
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
  /** The first in line sleeps on it; a slot of this node freed by this process wakes it. */
  sleeper: WakeableNap;
  localHeld: number;
}

export function createDaemonSlots(options: DaemonSlotsOptions): DaemonSlots {
  const { redis, logger, metrics, slotsPerNode } = options;
  if (!Number.isInteger(slotsPerNode) || slotsPerNode < 1) {
    throw new RangeError(`daemonSlotsPerNode: must be a whole number of at least 1 here (got ${slotsPerNode})`);
  }
  const pollMs = options.pollMs ?? 25;
  const shape: SlotShape = { limit: slotsPerNode, pollUs: pollMs * 1000 };
  const leaseMs = options.leaseMs ?? 3_000;
  const renewals = new Set<NodeJS.Timeout>();
  const outage = redisFailOpen(
    options.redisRetryMs ?? 5_000,
    options.warnEveryMs ?? 60_000,
    (err) => logger.warn({ err, slotsPerNode }, 'Proxmox daemon slots: Redis did not answer; this worker keeps its own protected calls to proxmox.daemonSlotsPerNode per node until it does'),
    options.redisReason,
  );
  const lines = new Map<string, NodeLine>();
  let closed = false;

  function lineOf(node: string): NodeLine {
    let line = lines.get(node);
    if (line === undefined) {
      line = { waiters: [], serving: false, sleeper: new WakeableNap(), localHeld: 0 };
      lines.set(node, line);
    }
    return line;
  }

  /**
   * A slot for a call whose pvedaemon run takes at most `worstCaseMs`.
   * `keep(afterMs)` tells where the slot is kept that it comes free in
   * afterMs (0: now); `renewEveryMs` > 0 calls it that often while the
   * call is pending, with the lease on top. Its end wakes the node's line.
   */
  function slotOf(node: string, line: NodeLine, worstCaseMs: number, keep: (afterMs: number) => Promise<void>, renewEveryMs: number): DaemonSlot {
    let sentAt: number | undefined;
    let done = false;
    metrics?.daemonSlotHeld(node, 1);
    /** What is left of the call's worst case: all of it until it is sent. */
    const worstLeftMs = (): number => (sentAt === undefined ? worstCaseMs : Math.max(0, sentAt + worstCaseMs - performance.now()));
    let renewal: NodeJS.Timeout | undefined;
    if (renewEveryMs > 0) {
      // A failed renewal is left alone: the next one, or the slot's own end, follows.
      renewal = setInterval(() => void keep(leaseMs + worstLeftMs()).catch(() => undefined), renewEveryMs).unref();
      renewals.add(renewal);
    }
    const release = (afterMs: number): void => {
      if (done) return;
      done = true;
      if (renewal !== undefined) {
        clearInterval(renewal);
        renewals.delete(renewal);
      }
      const freed = (): void => {
        metrics?.daemonSlotHeld(node, -1);
        line.sleeper.wake();
      };
      keep(afterMs).then(
        () => {
          if (afterMs <= 0) freed();
          else setTimeout(freed, afterMs).unref();
        },
        // Not freed in Redis: the slot comes free at its lease's end.
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
      abandoned(from) {
        if (sentAt === undefined) release(0);
        else release(from === 'sent' ? worstLeftMs() : worstCaseMs);
      },
    };
  }

  function redisSlot(node: string, line: NodeLine, worstCaseMs: number, key: string, id: string): DaemonSlot {
    return slotOf(node, line, worstCaseMs, (afterMs) => holdDaemonSlot(redis, key, id, afterMs * 1000), leaseMs / 3);
  }

  function localSlot(node: string, line: NodeLine, worstCaseMs: number): DaemonSlot {
    line.localHeld += 1;
    const keep = (afterMs: number): Promise<void> => {
      if (afterMs <= 0) line.localHeld -= 1;
      else setTimeout(() => (line.localHeld -= 1), afterMs).unref();
      return Promise.resolve();
    };
    return slotOf(node, line, worstCaseMs, keep, 0);
  }

  /** A slot for the first in line (made by `slot(worstCaseMs)`), or the ms to wait before asking again. */
  async function nextSlot(node: string, line: NodeLine): Promise<{ slot: (worstCaseMs: number) => DaemonSlot; local: boolean } | { waitMs: number }> {
    if (!closed && outage.askRedis()) {
      const key = daemonSlotKey(options.prefix, node);
      const id = randomUUID();
      // Whoever in line gets it (the first may leave meanwhile), it is
      // held at least that long; its first renewal makes it its own.
      const longest = Math.max(0, ...line.waiters.map((waiter) => waiter.worstCaseMs));
      try {
        const waitUs = await takeDaemonSlot(redis, key, id, shape, (leaseMs + longest) * 1000);
        if (waitUs === 0) return { slot: (worstCaseMs) => redisSlot(node, line, worstCaseMs, key, id), local: false };
        return { waitMs: Math.ceil(waitUs / 1000) };
      } catch (err) {
        outage.failed(err);
      }
    }
    return line.localHeld < slotsPerNode ? { slot: (worstCaseMs) => localSlot(node, line, worstCaseMs), local: true } : { waitMs: pollMs };
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
          await line.sleeper.nap(next.waitMs);
          continue;
        }
        const first = line.waiters.shift();
        if (first === undefined) {
          // Every caller aborted during the ask: the slot goes unused.
          next.slot(0).answered();
          continue;
        }
        if (next.local) metrics?.daemonSlotUnavailable();
        settle(node, first);
        first.resolve(next.slot(first.worstCaseMs));
      }
    } finally {
      line.serving = false;
    }
  }

  return {
    take(node, call, worstCaseMs, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      const line = lineOf(node);
      return new Promise<DaemonSlot>((resolve, reject) => {
        const waiter: Waiter = { call, worstCaseMs, started: performance.now(), held: false, resolve, reject, detach: () => undefined };
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
      for (const renewal of renewals) clearInterval(renewal);
      renewals.clear();
      redis.disconnect();
      return Promise.resolve();
    },
  };
}
