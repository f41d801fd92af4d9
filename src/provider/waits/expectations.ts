// How long each kind of wait takes (SPEC 26): a task type from its UPID
// (`resize`, `qmstart`, ...; a clone per image, `qmclone:<image>`),
// `running`, and the boot per image, `address:<image>`. Learned in each
// worker process and, given a store (learned-sync.ts), shared by all of
// them through Redis and kept across restarts. A wait's polls follow that expectation: the
// first lands at about the expected duration, then short polls; with
// nothing known yet, short polls doubling up. The spread of the samples
// is learned too: a steady kind takes its first poll at its expected
// time plus a margin, past pollMs if need be.

import type { LearnedSync } from './learned-sync.js';
import { mergeGuess, mergeSample, type Learned } from './learned-times.js';

/**
 * A wait that was already over at its poll at the expected time took less
 * than that, by an unknown amount: it counts as 2% shorter, so an
 * expectation that is too long comes down slowly (about 0.6% a wait)
 * instead of staying; one that comes too early costs a poll or two and
 * goes back up by what it missed.
 */
const OVER_AT_FIRST_LOOK = 0.98;
/** Samples before a kind's spread says anything: one sample has none. */
const STEADY_SAMPLES = 2;
/**
 * Steady: the samples' mean deviation is at most this share of their
 * mean. Half, not less: the samples are poll times, so their spread holds
 * the gaps between polls too (docs/decisions.md, "Calls per create").
 */
const STEADY_SPREAD = 0.5;

export type WaitKind = string;

/** The kind of a wait whose duration depends on the image: `<kind>:<image>`. */
export function perImage(kind: string, image: string): WaitKind {
  return `${kind}:${image}`;
}

export interface ScheduleShape {
  pollMs: number;
  /** The first of the short polls (they double up to pollMs). */
  shortMs: number;
  /** The longest gap between two polls while nothing is known (tasks: pollMs). */
  unknownCapMs: number;
  /** Whether the first poll may wait past pollMs for the expected time (the address wait); tasks poll at least every pollMs until their kind is steady. */
  firstMayExceedPoll: boolean;
}

/** The shape of the boards' waits (tasks, running): short polls from pollMs/8, never a gap above pollMs before a learned time. */
export function boardShape(pollMs: number): ScheduleShape {
  return { pollMs, shortMs: pollMs / 8, unknownCapMs: pollMs, firstMayExceedPoll: false };
}

/** The delays between one wait's polls. */
export class PollSchedule {
  private readonly plan: number[];
  private readonly planned: number;
  private shortMs: number;
  private polls = 0;
  private lastGap = 0;

  constructor(
    readonly expectedMs: number | undefined,
    private readonly shape: ScheduleShape,
    /**
     * Set for a steady kind: the first poll comes at the expected time
     * plus this margin, past pollMs if need be, so it lands after the end.
     */
    readonly marginMs?: number,
    /** With nothing known, the first poll comes this late (the address wait's budgets.firstAddressSeconds); 0 or unset: short polls at once. */
    unknownFirstMs?: number,
  ) {
    this.shortMs = Math.max(1, shape.shortMs);
    if (expectedMs === undefined) this.plan = unknownFirstMs !== undefined && unknownFirstMs > 0 ? [unknownFirstMs] : [];
    else if (marginMs !== undefined) this.plan = [Math.max(1, expectedMs + marginMs)];
    else this.plan = planTo(expectedMs, shape);
    this.planned = this.plan.length;
  }

  /** The delay before the next poll. */
  next(): number {
    this.polls += 1;
    const planned = this.plan.shift();
    if (planned !== undefined) return (this.lastGap = planned);
    const gap = this.shortMs;
    const cap = this.expectedMs === undefined ? this.shape.unknownCapMs : this.shape.pollMs;
    this.shortMs = Math.min(this.shortMs * 2, cap);
    return (this.lastGap = Math.min(gap, cap));
  }

  /** The gap before the latest poll when it was longer than pollMs (the address wait's doubling while nothing is known, or after a guess); else 0. */
  get longGapMs(): number {
    return this.lastGap > this.shape.pollMs ? this.lastGap : 0;
  }

  /** The longest gap between polls once an expectation is known. */
  get pollMs(): number {
    return this.shape.pollMs;
  }

  /** True while the polls made are those planned up to the expected time (the one that lands on it included). */
  get withinPlan(): boolean {
    return this.planned > 0 && this.polls === this.planned;
  }

  /** True when nothing was learned and only the first poll, planned late (firstAddressSeconds or a guess), was made. */
  get overAtGuess(): boolean {
    return this.expectedMs === undefined && this.withinPlan;
  }
}

/** Delays whose sum is the expected time, none above pollMs unless the first may be. */
function planTo(expectedMs: number, shape: ScheduleShape): number[] {
  const expected = Math.max(1, expectedMs);
  if (shape.firstMayExceedPoll || expected <= shape.pollMs) return [expected];
  const steps = Math.ceil(expected / shape.pollMs);
  return [expected - shape.pollMs * (steps - 1), ...Array.from({ length: steps - 1 }, () => shape.pollMs)];
}

export class Expectations {
  private readonly learned = new Map<WaitKind, Learned>();

  /** Without a sync, what this process learns stays in its memory. */
  constructor(private readonly sync?: LearnedSync) {
    void sync?.refresh(this.learned);
  }

  /** Resolves once the shared store was read (at most every refresh period; a read in flight is waited for). Never rejects. */
  async current(): Promise<void> {
    await this.sync?.refresh(this.learned);
  }

  expected(kind: WaitKind): number | undefined {
    return this.learned.get(kind)?.mean;
  }

  /** Whether the kind's samples are many and close enough to trust its first poll past pollMs. */
  steady(kind: WaitKind): boolean {
    const known = this.learned.get(kind);
    return known !== undefined && known.samples >= STEADY_SAMPLES && known.spread <= STEADY_SPREAD * known.mean;
  }

  schedule(kind: WaitKind, shape: ScheduleShape, unknownFirstMs?: number): PollSchedule {
    // The local copy, read back from the store at most every refresh period (no Redis read per poll).
    void this.sync?.refresh(this.learned);
    const known = this.learned.get(kind);
    if (known === undefined) return new PollSchedule(undefined, shape, undefined, unknownFirstMs);
    // A guess (no sample yet): the first poll at it, then polls as while nothing is known.
    if (known.samples < 1) return new PollSchedule(undefined, shape, undefined, known.mean);
    // A steady kind's first poll at the mean plus one short poll and the spread seen, so it lands after the end.
    const margin = this.steady(kind) ? shape.shortMs + known.spread : undefined;
    return new PollSchedule(known.mean, shape, margin);
  }

  /**
   * A wait of this kind seen over `elapsedMs` after it began, by the poll
   * the schedule made last. Over at the planned poll: a little less than
   * planned. Over at a poll after a gap longer than pollMs (the address
   * wait's doubling while nothing is known, or after a guess): the middle
   * of that gap. The poll's time there was up to 8 x pollMs late, and
   * every later create asked that late (the boot-storm bench's learned
   * wave, p95 1.34 the floor against 1.3); the middle is off by at most
   * half the gap either way, and a miss costs short polls once, then the
   * poll that saw it is learned (docs/decisions.md, "The cold address
   * wait learns the middle of its last gap"). Over at another poll: that
   * poll's time, an upper bound (a poll too early costs a call that holds
   * a pvedaemon worker, one a little late only time). Over at a first
   * poll planned with no sample known (firstAddressSeconds, or a guess):
   * the wait took at most that, by how much less nothing says; half of it
   * is the next guess, so an image that boots well within
   * firstAddressSeconds is not held to it. Down to pollMs: from there the
   * poll's time is the sample.
   */
  observe(kind: WaitKind, elapsedMs: number, schedule: PollSchedule): void {
    const guessMs = elapsedMs / 2;
    if (schedule.overAtGuess && guessMs >= schedule.pollMs) {
      this.learned.set(kind, mergeGuess(this.learned.get(kind), guessMs));
      this.sync?.guess(this.learned, kind, guessMs);
      return;
    }
    // The margin was added to the plan, not seen: without taking it off, every wait would push the mean up by it.
    const sample = schedule.withinPlan ? (elapsedMs - (schedule.marginMs ?? 0)) * OVER_AT_FIRST_LOOK : elapsedMs - schedule.longGapMs / 2;
    this.learned.set(kind, mergeSample(this.learned.get(kind), sample));
    this.sync?.add(this.learned, kind, sample);
  }
}
