// What a failed shared listing does to the waits it answers (SPEC 26): a
// Permanent failure (credentials, permissions, a node that does not
// exist) fails them all at once; a Transient one is tried again at the
// next poll, and fails them only after LISTING_TRIES in a row.
import { TransientError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { jobIdsOf } from '../context.js';
import { classify, permanent, transient } from '../errors.js';
import type { PollLoop, Waiter } from './poll-loop.js';

/**
 * One listing stands for every wait it answers: a single blip (a 5xx, a
 * 595 while pveproxy reloads, one timeout) must not fail them all, where
 * one failed status call fails only its own job. Three polls in a row (at
 * most 3 x pollMs apart) is an API that is really down; each job then
 * fails Transient and BullMQ retries it.
 */
export const LISTING_TRIES = 3;

export class ListingFailures {
  private inARow = 0;

  /** `the tasks of node pve1`, `the cluster resources`. */
  constructor(private readonly listing: string) {}

  succeeded(): void {
    this.inARow = 0;
  }

  /**
   * After a failed listing: how many failed in a row, and the error each
   * waiter fails with now (none: try again at the next poll).
   */
  failed(err: unknown): { inARow: number; failWith?: (what: string) => Error } {
    const classified = classify(err);
    const inARow = (this.inARow += 1);
    const lasting = !(classified instanceof TransientError);
    if (!lasting && inARow < LISTING_TRIES) return { inARow };
    this.inARow = 0;
    const failWith = (what: string): Error => {
      const why = `could not list ${this.listing} while waiting for ${what}`;
      return lasting
        ? permanent(`${why}: ${classified.reason}`, classified)
        : transient(`${why} (${LISTING_TRIES} tries in a row): ${classified.reason}`, classified);
    };
    return { inARow, failWith };
  }

  /** A failed listing: one warn line for all its waiters, then each fails now or polls again when due. */
  handle<T, W extends Waiter<T>>(err: unknown, at: { logger: Logger; line: string; fields: object; loop: PollLoop<T, W>; waiters: W[]; now: number }): void {
    const { inARow, failWith } = this.failed(err);
    at.logger.warn(
      { ...at.fields, err: err instanceof Error ? err.message : String(err), inARow, waiting: at.waiters.length, jobIds: jobIdsOf(at.waiters.map((w) => w.ctx)) },
      at.line,
    );
    for (const w of at.waiters) {
      if (failWith !== undefined) at.loop.fail(w, failWith(w.what));
      else if (at.loop.isDue(w, at.now)) at.loop.again(w);
    }
  }
}
