// A job's abort controller, made only when something asks for its signal
// (SPEC 21): an AbortController costs several microseconds to make, and a
// job whose handler never looks at the signal (a superseded job, a no-op
// provider) need not pay for one. Aborting first and asking later gives a
// signal already aborted with the same reason, as AbortController would.

/** What holdLock and the processor need of a controller; AbortController has it too. */
export interface Aborter {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}

export class LazyAbortController implements Aborter {
  private controller: AbortController | undefined;
  private aborted = false;
  private reason: unknown;

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }

  /** signal.throwIfAborted(), without making the signal while nothing aborted. */
  throwIfAborted(): void {
    if (this.aborted) this.signal.throwIfAborted();
  }
}
