// The shared Proxmox request budget (SPEC 26) as one worker process uses
// it: a call asks take() and sends its request once the budget in Redis
// (budget-script.ts) has given it a slot, and says when its answer is
// back. The process's calls stand in one line (waiting-line.ts), so only
// the first asks Redis and sleeps until its slot comes; the others follow
// without polling. A job's signal takes its call out of the line at once.
// When Redis does not answer, the process paces its own calls at the same
// rate (fail open, but bounded; docs/decisions.md).
import { redisFailOpen } from './redis-fail-open.js';
import type { RedisFailOpen } from './redis-fail-open.js';
import type { RedisClient } from '../redis-script.js';
import type { Logger } from '../log.js';
import type { RequestBudgetMetrics } from '../metrics.js';
import { keys } from '../redis-keys.js';
import { finishBudgetSlot, takeBudgetSlot } from './budget-script.js';
import type { BudgetKeys, BudgetShape } from './budget-script.js';
import { WaitingLine } from './waiting-line.js';
import type { AskAnswer, LineWaiter } from './waiting-line.js';

/** Call it once the request's answer (or its failure) is in. */
export type FinishRequest = () => void;

export interface RequestBudget {
  /** Resolves when the call named `call` may send its request; rejects with the signal's reason as soon as it aborts. */
  take(call: string, signal?: AbortSignal): Promise<FinishRequest>;
  /** Closes the budget's Redis connection; calls after it go by the local pace. */
  close(): Promise<void>;
}

export interface RequestBudgetOptions {
  /** Redis's error in words for the warn line (queue/redis-failure.ts's unreachableReason; the layers keep it out of src/proxmox). */
  redisReason?: (err: unknown) => string | undefined;
  /**
   * The budget's own connection, closed with it. Its commands must end
   * within a bound when Redis is down (commandTimeout), never queue for
   * ever as the worker's BullMQ connection does.
   */
  redis: RedisClient;
  prefix: string;
  /** Whose budget among several (a node's own apiUrl, SPEC 28); none: proxmox.url's. */
  scope?: string;
  /** At least 1. */
  maxRequestsPerSecond: number;
  burst: number;
  /** Longest a request may be on its way; its slot is held that long at most (a worker that dies mid-request). */
  inFlightMs: number;
  logger: Logger;
  metrics?: RequestBudgetMetrics;
  /** After Redis failed, calls go by the local pace this long before Redis is asked again (default 5 s). */
  redisRetryMs?: number;
  /** At most one warn line this often while Redis fails (default 60 s). */
  warnEveryMs?: number;
  /** A call that waited longer than this gets one debug line (default 5 s). */
  slowWaitMs?: number;
}

/** Added to the ceiling's second: Proxmox (and the simulator) stamp a request to the millisecond. */
const CEILING_GUARD_MS = 5;

/** How soon the first in line asks again when every slot is held by a request in flight (an answer here wakes it sooner). */
const IN_FLIGHT_POLL_MS = 20;

/** A slot for the first in line; local when the process's own pace decided. */
interface BudgetOffer {
  finish: FinishRequest;
  local: boolean;
}

/** One process's own pace, used while Redis does not answer: one call every interval. */
function localPace(intervalMs: number): (now: number) => number {
  let next = 0;
  return (now) => {
    if (now < next) return next - now;
    next = now + intervalMs;
    return 0;
  };
}

const noFinish: FinishRequest = () => undefined;

function budgetShape(options: RequestBudgetOptions): BudgetShape {
  return {
    limit: options.maxRequestsPerSecond,
    burst: options.burst,
    windowUs: (1000 + CEILING_GUARD_MS) * 1000,
    inFlightUs: options.inFlightMs * 1000,
    pollUs: IN_FLIGHT_POLL_MS * 1000,
  };
}

/** Where the budget's slots come from: Redis, or the process's own pace while Redis does not answer or after close. */
interface SlotSource {
  ask(): Promise<AskAnswer<BudgetOffer>>;
  close(): void;
}

/** `wake` is called when an answer of this process frees a slot in Redis. */
function slotSource(options: RequestBudgetOptions, keys: BudgetKeys, shape: BudgetShape, outage: RedisFailOpen, wake: () => void): SlotSource {
  const { redis } = options;
  const paceLocally = localPace(Math.ceil(1000 / options.maxRequestsPerSecond));
  let closed = false;

  function finisher(slot: string): FinishRequest {
    let finished = false;
    return () => {
      if (finished) return;
      finished = true;
      // Unanswered, the slot comes free after inFlightMs.
      finishBudgetSlot(redis, keys, slot, shape).then(
        () => wake(),
        () => undefined,
      );
    };
  }

  return {
    async ask() {
      if (!closed && outage.askRedis()) {
        try {
          const answer = await takeBudgetSlot(redis, keys, shape);
          return 'slot' in answer ? { offer: { finish: finisher(answer.slot), local: false } } : { waitMs: Math.ceil(answer.waitUs / 1000) };
        } catch (err) {
          outage.failed(err);
        }
      }
      const waitMs = paceLocally(Date.now());
      return waitMs > 0 ? { waitMs } : { offer: { finish: noFinish, local: true } };
    },
    close() {
      closed = true;
      redis.disconnect();
    },
  };
}

export function createRequestBudget(options: RequestBudgetOptions): RequestBudget {
  const { logger, metrics, maxRequestsPerSecond } = options;
  if (!Number.isInteger(maxRequestsPerSecond) || maxRequestsPerSecond < 1) {
    throw new RangeError(`maxRequestsPerSecond: must be a whole number of at least 1 (got ${maxRequestsPerSecond})`);
  }
  const outage = redisFailOpen(
    options.redisRetryMs ?? 5_000,
    options.warnEveryMs ?? 60_000,
    (err) => logger.warn({ err, maxRequestsPerSecond }, 'Proxmox request budget: Redis did not answer; this worker paces its own Proxmox calls at proxmox.maxRequestsPerSecond until it does'),
    options.redisReason,
  );
  // An answer that frees a slot wakes the line (its first sleeps until a slot may be free).
  const source = slotSource(options, keys.proxmoxBudget(options.prefix, options.scope), budgetShape(options), outage, () => line.wake());
  const slowWaitMs = options.slowWaitMs ?? 5_000;

  /** A call left the line, with its slot or aborted. */
  function left(waiter: LineWaiter<string, FinishRequest>): void {
    const ms = performance.now() - waiter.started;
    metrics?.budgetTaken(ms / 1000, waiter.held);
    if (ms > slowWaitMs) logger.debug({ call: waiter.item, waitedMs: Math.round(ms) }, 'proxmox call waited for the request budget');
  }

  const line = new WaitingLine<string, FinishRequest, BudgetOffer>({
    ask: () => source.ask(),
    give(offer, first) {
      if (offer.local) metrics?.budgetUnavailable();
      left(first);
      return offer.finish;
    },
    unused: (offer) => offer.finish(),
    aborted: left,
  });

  return {
    // A call that joins while the first in line sleeps is held back by the budget too.
    take: (call, signal) => line.wait(call, line.sleeping, signal),
    close() {
      source.close();
      return Promise.resolve();
    },
  };
}
