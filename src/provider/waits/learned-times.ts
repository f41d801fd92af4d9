// The learned wait times as a store outside the process keeps them
// (SPEC 26): every worker process on the prefix learns into it
// and reads it back, so a restart or a new worker starts where the others
// are. src/queue/learned-times-store.ts keeps it in Redis; the merge rule
// below is the one its script runs.

/** What is known of one kind of wait. */
export interface Learned {
  mean: number;
  /** Running mean absolute deviation of the samples from the mean. */
  spread: number;
  /**
   * Samples merged. 0: none yet, `mean` is a guess, half a first look
   * that was already too late (the address wait's; docs/decisions.md,
   * "Learned times in Redis"); the first sample replaces it.
   */
  samples: number;
}

/** The weight of one new observation in the running average. */
export const LEARNING_WEIGHT = 0.3;

/** One sample merged into what was known: the running mean and spread (the store's script does the same). */
export function mergeSample(before: Learned | undefined, sample: number): Learned {
  if (before === undefined || before.samples < 1) return { mean: sample, spread: 0, samples: 1 };
  return {
    mean: before.mean + LEARNING_WEIGHT * (sample - before.mean),
    spread: before.spread + LEARNING_WEIGHT * (Math.abs(sample - before.mean) - before.spread),
    samples: before.samples + 1,
  };
}

/** A guess recorded over what was known: it stands only where no sample was ever merged. */
export function mergeGuess(before: Learned | undefined, guessMs: number): Learned {
  if (before !== undefined && before.samples >= 1) return before;
  return { mean: guessMs, spread: 0, samples: 0 };
}

export interface LearnedTimesStore {
  /** Every kind the store knows. */
  read(): Promise<Map<string, Learned>>;
  /** Merges one sample into the kind atomically; answers what is known of it after. */
  add(kind: string, sample: number): Promise<Learned>;
  /** Records a guess for the kind atomically (mergeGuess); answers what is known of it after. */
  guess(kind: string, guessMs: number): Promise<Learned>;
}
