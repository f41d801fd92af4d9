// GET /v1/jobs/:id (SPEC 6), with an optional wait bounded at
// MAX_WAIT_SECONDS so a client cannot hold a connection open forever, and
// at most http.maxJobWaiters waits at once per process (SPEC 24). Another
// tenant's job is not found (SPEC 34).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { isJobIdShape } from '../../job-table/job-ids.js';
import type { VmService } from '../deps.js';
import { validationBody } from '../error-handler.js';
import { takesQuery } from '../query-keys.js';

export const MAX_WAIT_SECONDS = 60;

const FINISHED = new Set(['completed', 'failed']);

function parseWaitSeconds(raw: unknown): number | string {
  if (raw === undefined || raw === '') return 0;
  const text = typeof raw === 'string' ? raw : '';
  if (!/^\d+$/.test(text)) return `must be an integer from 0 to ${MAX_WAIT_SECONDS}`;
  const seconds = Number(text);
  if (seconds > MAX_WAIT_SECONDS) return `must be from 0 to ${MAX_WAIT_SECONDS}, got ${seconds}`;
  return seconds;
}

export function noSuchJob(reply: FastifyReply, id: string): FastifyReply {
  return reply.code(404).send({ error: 'NotFound', message: `no job ${id}` });
}

/** A wait refused at the cap is told to come back after this. */
export const WAITERS_RETRY_AFTER_SECONDS = 5;

export function jobRoutes(app: FastifyInstance, service: VmService, maxWaiters: number): void {
  let waiting = 0;
  app.get<{ Params: { id: string }; Querystring: { waitSeconds?: string } }>('/jobs/:id', takesQuery('waitSeconds'), async (request, reply) => {
    const wait = parseWaitSeconds(request.query.waitSeconds);
    if (typeof wait === 'string') return reply.code(400).send(validationBody([{ field: 'waitSeconds', message: wait }]));
    if (!isJobIdShape(request.params.id)) return noSuchJob(reply, request.params.id);
    const calls = service.asTenant(request.tenant);
    const job = await calls.getJob(request.params.id);
    if (job === undefined) return noSuchJob(reply, request.params.id);
    if (wait === 0 || FINISHED.has(job.state)) return job;
    if (waiting >= maxWaiters) {
      return reply
        .code(503)
        .header('Retry-After', String(WAITERS_RETRY_AFTER_SECONDS))
        .send({ error: 'TooManyWaiters', message: `this web process has ${waiting} waits open, its most (http.maxJobWaiters); try again in ${WAITERS_RETRY_AFTER_SECONDS} s, or without waitSeconds` });
    }
    waiting += 1;
    try {
      return await calls.waitForJob(request.params.id, { timeoutMs: wait * 1000 });
    } catch (err) {
      // Removed while we waited (retention, or an operator in Bull Board).
      if ((await calls.getJob(request.params.id)) === undefined) return reply.code(404).send({ error: 'NotFound', message: `job ${request.params.id} is gone` });
      throw err;
    } finally {
      waiting -= 1;
    }
  });
}
