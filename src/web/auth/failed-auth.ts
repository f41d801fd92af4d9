// What a refused credential costs the address it came from (SPEC 24): a
// delay before the 401 that doubles with each failure from that address
// (from firstDelayMs up to maxDelayMs), a counter by realm, and a warning
// at most once a minute per address with the count since the last one.
// The addresses are kept in memory in a bounded LRU, forgotten after
// forgetAfterMs without a failure: many addresses cannot grow it.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { Counter, type Registry } from 'prom-client';
import type { Logger } from '../../log.js';
import { penaltyKey } from './address-key.js';

export type AuthRealm = 'api' | 'board';

export interface FailedAuthOptions {
  firstDelayMs: number;
  maxDelayMs: number;
  /** An address with no failure for this long starts again from firstDelayMs. */
  forgetAfterMs: number;
  /** Addresses remembered at once; the least recently failing is forgotten first. */
  maxAddresses: number;
  warnEveryMs: number;
}

export const FAILED_AUTH_DEFAULTS: FailedAuthOptions = {
  firstDelayMs: 100,
  maxDelayMs: 5_000,
  forgetAfterMs: 15 * 60_000,
  maxAddresses: 10_000,
  warnEveryMs: 60_000,
};

interface AddressRecord {
  failures: number;
  /** Failures since the last warning. */
  unreported: number;
  warnedAt: number;
}

export class FailedAuth {
  private readonly addresses: LRUCache<string, AddressRecord>;
  private readonly counter: Counter<'realm'>;

  constructor(
    registry: Registry,
    private readonly logger: Logger,
    private readonly options: FailedAuthOptions = FAILED_AUTH_DEFAULTS,
  ) {
    this.addresses = new LRUCache({ max: options.maxAddresses, ttl: options.forgetAfterMs });
    this.counter = new Counter({
      name: 'pvep_http_auth_failures_total',
      help: 'Requests refused for a wrong bearer token (realm api) or a wrong Bull Board user or password (realm board).',
      labelNames: ['realm'] as const,
      registers: [registry],
    });
  }

  /** The delay the next failure from this address waits (ms). */
  delayFor(address: string): number {
    const failures = this.addresses.peek(penaltyKey(address))?.failures ?? 0;
    return Math.min(this.options.maxDelayMs, this.options.firstDelayMs * 2 ** failures);
  }

  /**
   * Counts one refused credential from `address` and resolves when its 401
   * may go out, or at once when `gone` fires (the client hung up: nothing
   * of the request is held for the rest of the delay).
   */
  async refused(address: string, realm: AuthRealm, gone?: AbortSignal): Promise<void> {
    const delayMs = this.delayFor(address);
    const key = penaltyKey(address);
    const record = this.addresses.get(key) ?? { failures: 0, unreported: 0, warnedAt: Number.NEGATIVE_INFINITY };
    record.failures += 1;
    record.unreported += 1;
    this.addresses.set(key, record);
    this.counter.inc({ realm });
    const now = Date.now();
    if (now - record.warnedAt >= this.options.warnEveryMs) {
      this.logger.warn(
        { address: key, realm, failures: record.unreported, delayMs },
        `${record.unreported} failed authentication(s) from ${key} (${realm === 'api' ? 'bearer token' : 'Bull Board user or password'}) since the last warning; its 401s are delayed, now by ${delayMs} ms`,
      );
      record.warnedAt = now;
      record.unreported = 0;
    }
    await sleep(delayMs, undefined, { signal: gone }).catch(() => undefined);
  }

  /** refused() for a request: the delay ends early when its connection closes. */
  async refusedRequest(request: FastifyRequest, realm: AuthRealm): Promise<void> {
    const socket = request.raw.socket;
    const hangUp = new AbortController();
    const abort = (): void => hangUp.abort();
    socket.once('close', abort);
    if (socket.destroyed) abort();
    try {
      await this.refused(request.ip, realm, hangUp.signal);
    } finally {
      socket.off('close', abort);
    }
  }
}
