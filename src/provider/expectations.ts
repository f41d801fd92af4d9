// How long each kind of wait takes, learned per worker process (SPEC 26):
// a task type from its UPID (`qmclone`, `imgcopy`, `resize`, `qmstart`,
// ...), `running`, `address`. A wait's polls follow that expectation: the
// first lands at about the expected duration, then short polls; with
// nothing known yet, short polls doubling up.

/** The weight of one new observation in the running average. */
const WEIGHT = 0.3;
/**
 * A wait that was already over at its poll at the expected time took less
 * than that, by an unknown amount: it counts as 2% shorter, so an
 * expectation that is too long comes down slowly (about 0.6% a wait)
 * instead of staying; one that comes too early costs a poll or two and
 * goes back up by what it missed.
 */
const OVER_AT_FIRST_LOOK = 0.98;

export type WaitKind = string;

export interface ScheduleShape {
  pollMs: number;
  /** The first of the short polls (they double up to pollMs). */
  shortMs: number;
  /** The longest gap between two polls while nothing is known (tasks: pollMs). */
  unknownCapMs: number;
  /** Whether the first poll may wait past pollMs for the expected time (the address wait); tasks poll at least every pollMs. */
  firstMayExceedPoll: boolean;
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
  ) {
    this.shortMs = Math.max(1, shape.shortMs);
    this.plan = expectedMs === undefined ? [] : planTo(expectedMs, shape);
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

  /** True while the polls made are those planned up to the expected time (the one that lands on it included). */
  get withinPlan(): boolean {
    return this.planned > 0 && this.polls === this.planned;
  }

  /** The gap before the latest poll when it was longer than pollMs (the address wait's doubling); else 0. */
  get longGapMs(): number {
    return this.lastGap > this.shape.pollMs ? this.lastGap : 0;
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
  private readonly learned = new Map<WaitKind, number>();

  expected(kind: WaitKind): number | undefined {
    return this.learned.get(kind);
  }

  schedule(kind: WaitKind, shape: ScheduleShape): PollSchedule {
    return new PollSchedule(this.learned.get(kind), shape);
  }

  /**
   * A wait of this kind seen over `elapsedMs` after it began, by the poll
   * the schedule made last. Over at the planned poll: a little less than
   * planned. Over at another poll: that poll's time, an upper bound kept
   * on purpose (a poll too early costs a call, one a little late only
   * time), except after a gap longer than pollMs (the address wait while
   * nothing is known), where the middle of the gap is the better guess.
   */
  observe(kind: WaitKind, elapsedMs: number, schedule: PollSchedule): void {
    let sample = elapsedMs;
    if (schedule.withinPlan) sample = elapsedMs * OVER_AT_FIRST_LOOK;
    else if (schedule.longGapMs > 0) sample = elapsedMs - schedule.longGapMs / 2;
    const before = this.learned.get(kind);
    this.learned.set(kind, before === undefined ? sample : before + WEIGHT * (sample - before));
  }
}
