// The pvedaemon slots (SPEC 28) as one worker process uses them: a
// protected call asks take(node) and goes once the node's sorted set in
// Redis (daemon-slot-script.ts) has room, so every process together keeps
// at most `slotsPerNode` protected calls in flight per node. The
// process's calls for one node stand in one line (waiting-line.ts): only
// the first asks Redis, and sleeps until a slot may be free (an answer of
// this process wakes it sooner); the others follow without asking. A
// job's signal takes its call out of the line at once. A slot held in
// Redis is a lease its process renews while the call is pending, so a
// worker that dies frees its slots within `leaseMs` of the end of its
// calls' worst cases. When Redis does not answer, the process keeps its
// own count of `slotsPerNode` per node (fail open, but bounded per
// process, as the request budget does; docs/decisions.md).
import { redisFailOpen } from './redis-fail-open.js';
import type { RedisFailOpen } from './redis-fail-open.js';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.js';
import type { DaemonSlotMetrics } from '../metrics.js';
import type { RedisClient } from '../redis-script.js';
import { keys } from '../redis-keys.js';
import { holdDaemonSlot, takeDaemonSlot } from './daemon-slot-script.js';
import type { SlotShape } from './daemon-slot-script.js';
import { WaitingLine } from './waiting-line.js';
import type { AskAnswer, LineWaiter } from './waiting-line.js';

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

/** What the slots know of a call in line. */
interface SlotCall {
  call: string;
  worstCaseMs: number;
}

/** A slot for the first in line, made for its worst case; local when the process's own count decided. */
interface SlotOffer {
  slot: (worstCaseMs: number) => DaemonSlot;
  local: boolean;
}

/** One node's line in this process, and the slots it holds while Redis does not answer. */
interface NodeLine {
  line: WaitingLine<SlotCall, DaemonSlot, SlotOffer>;
  localHeld: number;
}

/** What the slots of one process share. */
interface SlotsState {
  options: DaemonSlotsOptions;
  shape: SlotShape;
  leaseMs: number;
  pollMs: number;
  /** The renewal timers of the slots held in Redis, cleared on close. */
  renewals: Set<NodeJS.Timeout>;
  outage: RedisFailOpen;
  closed: boolean;
}

/**
 * A slot for a call whose pvedaemon run takes at most `worstCaseMs`.
 * `keep(afterMs)` tells where the slot is kept that it comes free in
 * afterMs (0: now); `renewEveryMs` > 0 calls it that often while the
 * call is pending, with the lease on top. Its end wakes the node's line.
 */
function heldSlot(state: SlotsState, node: string, nodeLine: NodeLine, worstCaseMs: number, keep: (afterMs: number) => Promise<void>, renewEveryMs: number): DaemonSlot {
  const { metrics } = state.options;
  let sentAt: number | undefined;
  let done = false;
  metrics?.daemonSlotHeld(node, 1);
  /** What is left of the call's worst case: all of it until it is sent. */
  const worstLeftMs = (): number => (sentAt === undefined ? worstCaseMs : Math.max(0, sentAt + worstCaseMs - performance.now()));
  let renewal: NodeJS.Timeout | undefined;
  if (renewEveryMs > 0) {
    // A failed renewal is left alone: the next one, or the slot's own end, follows.
    renewal = setInterval(() => void keep(state.leaseMs + worstLeftMs()).catch(() => undefined), renewEveryMs).unref();
    state.renewals.add(renewal);
  }
  const release = (afterMs: number): void => {
    if (done) return;
    done = true;
    if (renewal !== undefined) {
      clearInterval(renewal);
      state.renewals.delete(renewal);
    }
    const freed = (): void => {
      metrics?.daemonSlotHeld(node, -1);
      nodeLine.line.wake();
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

function redisSlot(state: SlotsState, node: string, nodeLine: NodeLine, worstCaseMs: number, key: string, id: string): DaemonSlot {
  return heldSlot(state, node, nodeLine, worstCaseMs, (afterMs) => holdDaemonSlot(state.options.redis, key, id, afterMs * 1000), state.leaseMs / 3);
}

function localSlot(state: SlotsState, node: string, nodeLine: NodeLine, worstCaseMs: number): DaemonSlot {
  nodeLine.localHeld += 1;
  const keep = (afterMs: number): Promise<void> => {
    if (afterMs <= 0) nodeLine.localHeld -= 1;
    else setTimeout(() => (nodeLine.localHeld -= 1), afterMs).unref();
    return Promise.resolve();
  };
  return heldSlot(state, node, nodeLine, worstCaseMs, keep, 0);
}

/** A slot for the first in line of `node`, or the ms to wait before asking again. */
async function askSlot(state: SlotsState, node: string, nodeLine: NodeLine): Promise<AskAnswer<SlotOffer>> {
  const { options, outage } = state;
  if (!state.closed && outage.askRedis()) {
    const key = keys.daemonSlots(options.prefix, node);
    const id = randomUUID();
    // Whoever in line gets it (the first may leave meanwhile), it is
    // held at least that long; its first renewal makes it its own.
    const longest = Math.max(0, ...nodeLine.line.waiters.map((waiter) => waiter.item.worstCaseMs));
    try {
      const waitUs = await takeDaemonSlot(options.redis, key, id, state.shape, (state.leaseMs + longest) * 1000);
      if (waitUs === 0) return { offer: { slot: (worstCaseMs) => redisSlot(state, node, nodeLine, worstCaseMs, key, id), local: false } };
      return { waitMs: Math.ceil(waitUs / 1000) };
    } catch (err) {
      outage.failed(err);
    }
  }
  if (nodeLine.localHeld < options.slotsPerNode) return { offer: { slot: (worstCaseMs) => localSlot(state, node, nodeLine, worstCaseMs), local: true } };
  return { waitMs: state.pollMs };
}

function nodeLineOf(state: SlotsState, node: string): NodeLine {
  const { metrics } = state.options;
  const settle = (waiter: LineWaiter<SlotCall, DaemonSlot>): void => {
    metrics?.daemonSlotTaken(node, (performance.now() - waiter.started) / 1000, waiter.held);
  };
  const nodeLine: NodeLine = {
    line: new WaitingLine({
      ask: () => askSlot(state, node, nodeLine),
      give(offer, first) {
        if (offer.local) metrics?.daemonSlotUnavailable();
        settle(first);
        return offer.slot(first.item.worstCaseMs);
      },
      // Every caller aborted during the ask: the slot goes unused.
      unused: (offer) => offer.slot(0).answered(),
      aborted: settle,
    }),
    localHeld: 0,
  };
  return nodeLine;
}

export function createDaemonSlots(options: DaemonSlotsOptions): DaemonSlots {
  const { redis, logger, slotsPerNode } = options;
  if (!Number.isInteger(slotsPerNode) || slotsPerNode < 1) {
    throw new RangeError(`daemonSlotsPerNode: must be a whole number of at least 1 here (got ${slotsPerNode})`);
  }
  const pollMs = options.pollMs ?? 25;
  const state: SlotsState = {
    options,
    shape: { limit: slotsPerNode, pollUs: pollMs * 1000 },
    leaseMs: options.leaseMs ?? 3_000,
    pollMs,
    renewals: new Set<NodeJS.Timeout>(),
    outage: redisFailOpen(
      options.redisRetryMs ?? 5_000,
      options.warnEveryMs ?? 60_000,
      (err) => logger.warn({ err, slotsPerNode }, 'Proxmox daemon slots: Redis did not answer; this worker keeps its own protected calls to proxmox.daemonSlotsPerNode per node until it does'),
      options.redisReason,
    ),
    closed: false,
  };
  const lines = new Map<string, NodeLine>();

  return {
    take(node, call, worstCaseMs, signal) {
      let nodeLine = lines.get(node);
      if (nodeLine === undefined) {
        nodeLine = nodeLineOf(state, node);
        lines.set(node, nodeLine);
      }
      return nodeLine.line.wait({ call, worstCaseMs }, false, signal);
    },
    close() {
      state.closed = true;
      for (const renewal of state.renewals) clearInterval(renewal);
      state.renewals.clear();
      redis.disconnect();
      return Promise.resolve();
    },
  };
}
