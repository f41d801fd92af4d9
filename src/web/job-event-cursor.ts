// What GET /v1/jobs/:id/events sends (SPEC 27), as a pure function of
// where the client is and the job as it stands now. The event id is that
// place, written out: any web process can resume a stream from a client's
// Last-Event-ID without having seen it before (docs/decisions.md).
import { isCreateStep } from '../job-table/result.schema.js';
import { isFinished, type JobView } from '../queue/job-view.js';
import type { StreamEvent } from './event-stream.js';

export interface EventCursor {
  /** Log lines delivered as `log` events: lines 0 to lines-1. */
  lines: number;
  /** The `step` event of line `lines` is delivered, its `log` event not yet. */
  stepSent: boolean;
  /** The last state sent (`none` before any), and the attemptsMade sent with it. */
  state: string;
  attempts: number;
}

export const STREAM_START: EventCursor = { lines: 0, stepSent: false, state: 'none', attempts: 0 };

/** `<lines>[s].<state>.<attempts>`, e.g. `7s.active.1`. */
export const EVENT_ID_PATTERN = /^(\d{1,9})(s?)\.([a-z][a-z-]{0,30})\.(\d{1,9})$/;

/** The `step: <step>` line the worker logs after recording the step (src/worker/job-context.ts). */
const STEP_LINE = /^step: (\S+)$/;

export function formatCursor(cursor: EventCursor): string {
  return `${cursor.lines}${cursor.stepSent ? 's' : ''}.${cursor.state}.${cursor.attempts}`;
}

/** undefined when the text is not an id this stream sends. */
export function parseCursor(text: string): EventCursor | undefined {
  const match = EVENT_ID_PATTERN.exec(text.trim());
  if (match === null) return undefined;
  const [, lines = '', step, state = '', attempts = ''] = match;
  return { lines: Number(lines), stepSent: step === 's', state, attempts: Number(attempts) };
}

/** The client has the `end` event. */
export function cursorEnded(cursor: EventCursor): boolean {
  return cursor.state === 'completed' || cursor.state === 'failed';
}

function endData(view: JobView): Record<string, unknown> {
  return {
    state: view.state,
    attemptsMade: view.attemptsMade,
    ...(view.state === 'completed' ? { result: view.result ?? null } : { failedReason: view.failedReason ?? '' }),
    ...(view.finishedAt === undefined ? {} : { finishedAt: view.finishedAt }),
  };
}

/**
 * The events from `cursor` to `view`, in order: a `state` event when the
 * state or attemptsMade changed (a retry shows as a new attemptsMade even
 * when its delayed spell fell between two reads), then each new log line
 * (a `step` event first for a step line), then `end` once finished.
 * Log lines are an append-only list, so none is skipped or repeated.
 * With `stateSettled` false the state event waits: see settledState.
 */
export function eventsSince(cursor: EventCursor, view: JobView, stateSettled = true): { events: StreamEvent[]; cursor: EventCursor } {
  const at: EventCursor = { ...cursor };
  const events: StreamEvent[] = [];
  const emit = (event: string, data: unknown): void => {
    events.push({ event, id: formatCursor(at), data });
  };
  const finished = isFinished(view);
  if (!finished && stateSettled && (view.state !== at.state || view.attemptsMade !== at.attempts)) {
    at.state = view.state;
    at.attempts = view.attemptsMade;
    emit('state', { state: view.state, attemptsMade: view.attemptsMade });
  }
  view.logs.slice(at.lines).forEach((line, offset) => {
    const index = cursor.lines + offset;
    const step = STEP_LINE.exec(line)?.[1];
    if (isCreateStep(step) && !at.stepSent) {
      at.stepSent = true;
      emit('step', { index, step });
    }
    at.lines = index + 1;
    at.stepSent = false;
    emit('log', { index, line });
  });
  if (finished) {
    at.state = view.state;
    at.attempts = view.attemptsMade;
    emit('end', endData(view));
  }
  return { events, cursor: at };
}

/**
 * A view reads the state before the job's fields, so a job finishing or
 * retried between the two reads shows a state with the next attempt's
 * attemptsMade (`active` with attemptsMade 1 just before its end). A
 * state is sent once two reads in a row agree on it; a finished view
 * stands alone. Returns whether `view` is settled, and what to compare
 * the next read with.
 */
export function settledState(previous: string | undefined, view: JobView): { settled: boolean; seen: string } {
  const seen = `${view.state}.${view.attemptsMade}`;
  return { settled: isFinished(view) || seen === previous, seen };
}
