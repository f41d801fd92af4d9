// GET /v1/jobs/:id/events (SPEC 27): one job's states, steps, log lines
// and end as server-sent events; the server closes the stream at the end.
// The job view is read on a short interval, one read at a time, and the
// streams on one job share the reads (job-watch.ts), so it works the same
// with any number of workers and web processes, a Redis blip only delays
// the next read, and the Redis work grows with the jobs followed, not the
// streams. A stream lasts at most options.maxSeconds (docs/decisions.md).
// Another tenant's job is not found (SPEC 34); once a stream is open on
// its tenant's job, the shared reads see every job (a job keeps its tenant).
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { isJobIdShape } from '../../job-table/job-ids.js';
import type { JobView } from '../../queue/job-view.js';
import { JobWatch, type JobRead } from '../../queue/job-watch.js';
import { unavailableReason } from '../../queue/redis-failure.js';
import { redactSecrets } from '../../secrets/redact.js';
import { DEFAULT_TENANT } from '../../tenants/types.js';
import type { VmService } from '../deps.js';
import { validationBody } from '../error-handler.js';
import { openEventStream, type EventStream } from '../event-stream.js';
import { STREAM_START, cursorEnded, eventsSince, parseCursor, settledState, type EventCursor } from '../job-event-cursor.js';
import { JOB_EVENT_DEFAULTS, type JobEventOptions } from '../job-event-options.js';
import { takesQuery } from '../query-keys.js';
import { noSuchJob } from './jobs.js';

const RETRY_AFTER_SECONDS = 5;

interface Follow {
  stream: EventStream;
  watch: JobWatch;
  id: string;
  options: JobEventOptions;
  log: FastifyBaseLogger;
}

/** Sends what the job has from `cursor` on, then keeps reading it until it ends or the client goes away. */
function follow({ stream, watch, id, options, log }: Follow, first: JobView, from: EventCursor): void {
  let cursor = from;
  let unavailable = false;
  let lastSeen: string | undefined;
  const heartbeat = setInterval(() => stream.comment('heartbeat'), options.heartbeatMs);
  // The event carries no id, so the client's Last-Event-ID stays the last event it had: it resumes right there.
  const lifetime = setTimeout(() => {
    stream.send({ event: 'reconnect', data: { message: `this stream was open ${options.maxSeconds} s, its most; reconnect with Last-Event-ID to go on where it was` } });
    stream.end();
  }, options.maxSeconds * 1000);
  let stop = (): void => undefined;
  stream.onClose(() => {
    stop();
    clearTimeout(lifetime);
    clearInterval(heartbeat);
  });
  const deliver = (view: JobView): void => {
    const state = settledState(lastSeen, view);
    lastSeen = state.seen;
    const next = eventsSince(cursor, view, state.settled);
    for (const event of next.events) stream.send(event);
    cursor = next.cursor;
    if (cursorEnded(cursor)) stream.end();
  };
  const heard = (read: JobRead): void => {
    if (stream.closed) return;
    if ('view' in read) {
      const view = read.view;
      if (view === undefined) {
        stream.send({ event: 'gone', data: { error: 'NotFound', message: `job ${id} is gone (removed by retention or from Bull Board)` } });
        stream.end();
        return;
      }
      unavailable = false;
      deliver(view);
      return;
    }
    // Sent once an outage; the stream stays open and goes on where it was.
    if (!unavailable) {
      unavailable = true;
      const err = read.error;
      const reason = unavailableReason(err);
      if (reason === undefined) log.warn({ jobId: id, message: redactSecrets(err instanceof Error ? err.message : String(err)) }, 'job events: reading the job failed; trying again');
      stream.send({ event: 'unavailable', data: { message: `cannot read the job now (${reason ?? 'the read failed'}); the stream goes on when it can` } });
    }
  };
  deliver(first);
  if (!stream.closed) stop = watch.watch(id, heard);
}

export function jobEventRoutes(app: FastifyInstance, service: Pick<VmService, 'asTenant'>, options: JobEventOptions = JOB_EVENT_DEFAULTS): void {
  const open = new Set<EventStream>();
  const everyJob = service.asTenant(DEFAULT_TENANT);
  const watch = new JobWatch((id) => everyJob.getJob(id), options.pollMs);
  // A stream would hold app.close() until its job ends: end them first.
  app.addHook('preClose', (done) => {
    for (const stream of open) stream.end();
    done();
  });
  // An EventSource polyfill that sends headers (the bearer token) resumes with `?lastEventId=` instead of the header.
  app.get<{ Params: { id: string }; Querystring: { lastEventId?: unknown } }>('/jobs/:id/events', takesQuery('lastEventId'), async (request, reply) => {
    const id = request.params.id;
    if (!isJobIdShape(id)) return noSuchJob(reply, id);
    const fromHeader = request.headers['last-event-id'] !== undefined;
    const lastEventId = fromHeader ? request.headers['last-event-id'] : request.query.lastEventId;
    let from = STREAM_START;
    if (lastEventId !== undefined) {
      const parsed = typeof lastEventId === 'string' ? parseCursor(lastEventId) : undefined;
      if (parsed === undefined) return reply.code(400).send(validationBody([{ field: fromHeader ? 'Last-Event-ID' : 'lastEventId', message: 'must be an id this stream sent, such as 7s.active.1' }]));
      from = parsed;
    }
    const first = await service.asTenant(request.tenant).getJob(id);
    if (first === undefined) return noSuchJob(reply, id);
    // The client has the end: 204 tells an EventSource to stop reconnecting.
    if (cursorEnded(from)) return reply.code(204).send();
    if (open.size >= options.maxStreams) {
      return reply
        .code(503)
        .header('Retry-After', String(RETRY_AFTER_SECONDS))
        .send({ error: 'TooManyStreams', message: `this web process has ${open.size} event streams open, its most; try again in ${RETRY_AFTER_SECONDS} s or poll GET /v1/jobs/${id}` });
    }
    const stream = openEventStream(reply);
    open.add(stream);
    stream.onClose(() => open.delete(stream));
    follow({ stream, watch, id, options, log: request.log }, first, from);
    return reply;
  });
}
