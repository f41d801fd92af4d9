// The learned wait times as a store outside the process keeps them
// (SPEC 26, issue 27): every worker process on the prefix learns into it
// and reads it back, so a restart or a new worker starts where the others
// are. src/queue/wait-times.ts keeps it in Redis; the merge rule below is
// the one its script runs.

/** What is known of one kind of wait. */
export interface Learned {
  mean: number;
  /** Running mean absolute deviation of the samples from the mean. */
  spread: number;
  samples: number;
}

/** The weight of one new observation in the running average. */
export const LEARNING_WEIGHT = 0.3;

/** One sample merged into what was known: the running mean and spread (the store's script does the same). */
export function mergeSample(before: Learned | undefined, sample: number): Learned {
  if (before === undefined) return { mean: sample, spread: 0, samples: 1 };
  return {
    mean: before.mean + LEARNING_WEIGHT * (sample - before.mean),
    spread: before.spread + LEARNING_WEIGHT * (Math.abs(sample - before.mean) - before.spread),
    samples: before.samples + 1,
  };
}

export interface LearnedTimesStore {
  /** Every kind the store knows. */
  read(): Promise<Map<string, Learned>>;
  /** Merges one sample into the kind atomically; answers what is known of it after. */
  add(kind: string, sample: number): Promise<Learned>;
}
