// GET /v1/jobs/:id/events's limits and intervals (SPEC 27); tests make them short.
export interface JobEventOptions {
  /** Streams this web process holds open at once; one more is a 503. */
  maxStreams: number;
  /** Between the end of one read of the job and the start of the next. */
  pollMs: number;
  /** A comment line this often keeps proxies from closing a quiet stream. */
  heartbeatMs: number;
  /** Longest a stream stays open (http.eventStreamMaxSeconds); then a `reconnect` event and the end. */
  maxSeconds: number;
}

export const DEFAULT_MAX_EVENT_STREAMS = 200;

export const JOB_EVENT_DEFAULTS: JobEventOptions = { maxStreams: DEFAULT_MAX_EVENT_STREAMS, pollMs: 250, heartbeatMs: 15_000, maxSeconds: 900 };
