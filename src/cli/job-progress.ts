// What `--wait` prints on stderr while a job runs (SPEC 27): the job's
// state when it changes, each log line as the job writes it (a create's
// steps come as `step: cloned`, `step: seeded`, ...; a retry's reason
// too), and at the end the address a create reached. stdout keeps only
// the final JSON, for scripts.
import type { JobView } from '../client.js';
import { isFinished } from '../queue/job-view.js';
import { shown } from './terminal-text.js';

export interface ProgressPrinter {
  /** Give it each view read while waiting (waitForJob's onView). */
  see(view: JobView): void;
  /** After the wait: the address of a completed job's result, when it has one. */
  finish(view: JobView): void;
}

/** A create's or a check's address; a superseded create has none. */
function addressOf(view: JobView): string | undefined {
  const result = view.job === 'create' || view.job === 'check' ? view.result : undefined;
  const address = result !== undefined && 'address' in result ? result.address : undefined;
  return address === '' ? undefined : address;
}

export function progressPrinter(stderr: { write(text: string): unknown }): ProgressPrinter {
  let state: string | undefined;
  let linesShown = 0;
  const say = (id: string, text: string): void => {
    stderr.write(`job ${shown(id)}: ${shown(text)}\n`);
  };
  return {
    see(view) {
      const changed = view.state !== state;
      state = view.state;
      // A job's lines are written while it runs: a new running state comes before them, an end after.
      const ended = isFinished(view);
      if (changed && !ended) say(view.id, view.state);
      // Log lines only grow (BullMQ appends); retention may trim them, so never go back.
      for (const line of view.logs.slice(linesShown)) say(view.id, line);
      linesShown = Math.max(linesShown, view.logs.length);
      if (changed && ended) say(view.id, view.state);
    },
    finish(view) {
      const address = view.state === 'completed' ? addressOf(view) : undefined;
      if (address !== undefined) say(view.id, `address ${address}`);
    },
  };
}
