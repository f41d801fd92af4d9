// One voice per process for a Redis that is down (SPEC 24). Every
// connection to an address (ours, BullMQ's duplicates, the producer's)
// reports here; the process logs one line when the outage starts, then at
// most one warn line per retry interval, then one line when Redis is back.
// No stack traces: an unreachable Redis is an operating condition, not a bug.
import { REDIS_RETRY_FIRST_MS, REDIS_RETRY_MAX_MS } from './redis-backoff.js';
import { unreachableLine, unreachableReason } from './redis-failure.js';

/**
 * The calls made on the process's logger (pino's Logger is one): named so,
 * the producer library reaches no pino, not even as a type (SPEC 27).
 */
export interface OutageLogger {
  error(fields: object, line: string): void;
  warn(fields: object, line: string): void;
  info(fields: object, line: string): void;
}

export interface RedisOutage {
  address: string;
  reason: string;
  /** ms since the epoch. */
  since: number;
}

export class RedisOutageReporter {
  private outage: RedisOutage | undefined;
  private nextLineAt = 0;
  private retryDelayMs = REDIS_RETRY_FIRST_MS;

  constructor(
    readonly address: string,
    private logger: OutageLogger | undefined,
    private readonly now: () => number = Date.now,
    /** What the line tells an operator to check (redis-target.ts). */
    readonly check?: string,
  ) {}

  /** Where the lines go; undefined keeps the reporter silent (a library embedded in someone's app). */
  setLogger(logger: OutageLogger | undefined): void {
    this.logger = logger;
  }

  current(): RedisOutage | undefined {
    return this.outage;
  }

  /** Seconds a client should wait before asking again: the current retry interval. */
  retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(Math.min(this.retryDelayMs, REDIS_RETRY_MAX_MS) / 1000));
  }

  /** An 'error' event: a connection failure starts or continues the outage; anything else is logged as the error it is. */
  error(err: unknown, source: string, logger: OutageLogger | undefined = this.logger): void {
    if (this.failed(err)) return;
    logger?.error({ err, source, redis: this.address }, `${source} error: ${err instanceof Error ? err.message : String(err)}`);
  }

  /** A connection failed. Returns false (and records nothing) when err is not a connection failure. */
  failed(err: unknown): boolean {
    const reason = unreachableReason(err);
    if (reason === undefined) return false;
    if (this.outage !== undefined) {
      this.outage.reason = reason;
      return true;
    }
    const since = this.now();
    this.outage = { address: this.address, reason, since };
    this.nextLineAt = since + REDIS_RETRY_FIRST_MS * 0.9;
    this.logger?.error({ redis: this.address, reason }, `${unreachableLine(this.address, reason, this.check)}; retrying with backoff (up to every ${REDIS_RETRY_MAX_MS / 1000} s)`);
    return true;
  }

  /** A connection will try again in delayMs. */
  retrying(delayMs: number): void {
    this.retryDelayMs = delayMs;
    const outage = this.outage;
    if (outage === undefined) return;
    const now = this.now();
    if (now < this.nextLineAt) return;
    this.nextLineAt = now + delayMs * 0.9;
    const down = Math.round((now - outage.since) / 1000);
    this.logger?.warn(
      { redis: this.address, reason: outage.reason, downSeconds: down, retryInMs: delayMs },
      `Redis at ${this.address} still not reachable (${outage.reason}) after ${down} s; next try in ${Math.round(delayMs / 100) / 10} s`,
    );
  }

  /** A connection is ready again. */
  recovered(): void {
    const outage = this.outage;
    this.retryDelayMs = REDIS_RETRY_FIRST_MS;
    if (outage === undefined) return;
    this.outage = undefined;
    const down = Math.round((this.now() - outage.since) / 1000);
    this.logger?.info({ redis: this.address, downSeconds: down }, `Redis at ${this.address} is reachable again (after ${down} s)`);
  }
}

// One reporter per address in this process, so every connection to it
// shares the outage and its rate of lines.
const reporters = new Map<string, RedisOutageReporter>();
let processLogger: OutageLogger | undefined;

export function redisOutageReporter(address: string, check?: string): RedisOutageReporter {
  let reporter = reporters.get(address);
  if (reporter === undefined) {
    reporter = new RedisOutageReporter(address, processLogger, Date.now, check);
    reporters.set(address, reporter);
  }
  return reporter;
}

/** The service's processes (web, worker, all) log outages; the producer library alone stays silent. */
export function logRedisOutagesTo(logger: OutageLogger): void {
  processLogger = logger;
  for (const reporter of reporters.values()) reporter.setLogger(logger);
}
