// One read of a job per interval per process, however many wait on it:
// every waiter on a job (waitForJob, an event stream) hears the same
// reads, so the Redis work of waiting grows with the jobs waited on, not
// with the waiters (docs/decisions.md).
import type { JobView } from './job-view.js';

/** One read of the job: its view (undefined: no such job), or why the read failed. */
export type JobRead = { view: JobView | undefined } | { error: unknown };

export type JobReadListener = (read: JobRead) => void;

interface Watch {
  listeners: Set<JobReadListener>;
}

export class JobWatch {
  private readonly watches = new Map<string, Watch>();

  /**
   * @param read reads one job's view
   * @param everyMs between the end of one read of a job and the start of the next
   */
  constructor(
    private readonly read: (id: string) => Promise<JobView | undefined>,
    private readonly everyMs: number,
  ) {}

  /** `listener` hears each read of the job from everyMs on, until the returned stop is called. */
  watch(id: string, listener: JobReadListener): () => void {
    let watch = this.watches.get(id);
    if (watch === undefined) {
      watch = { listeners: new Set() };
      this.watches.set(id, watch);
      void this.run(id, watch);
    }
    const listeners = watch.listeners;
    const entry = (read: JobRead): void => listener(read);
    listeners.add(entry);
    return () => {
      listeners.delete(entry);
    };
  }

  /** Jobs read now: one loop each. */
  get watched(): number {
    return this.watches.size;
  }

  private async run(id: string, watch: Watch): Promise<void> {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, this.everyMs));
      if (watch.listeners.size === 0) break;
      let read: JobRead;
      try {
        read = { view: await this.read(id) };
      } catch (error) {
        read = { error };
      }
      for (const listener of [...watch.listeners]) {
        try {
          listener(read);
        } catch {
          // A listener's own failure is its own: the others, and the reads, go on.
        }
      }
    }
    this.watches.delete(id);
  }
}
