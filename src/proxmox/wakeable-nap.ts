// A sleep that something else may end early: the first of a process's
// calls in line naps until a slot may be free, and an answer of this
// process that frees one wakes it at once (waiting-line.ts, the line of
// the request budget and of each node's daemon slots).

export class WakeableNap {
  private wakeUp: (() => void) | undefined;

  /** Sleeps ms, or less when wake() is called meanwhile. */
  nap(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  /** Ends the nap under way, if any. */
  wake(): void {
    this.wakeUp?.();
  }
}
