// One error handler for the whole web process: the producer's
// ValidationError is a 400 listing every failing field, its ConflictError
// a 409, and so is its PoolExhaustedError (naming the pool and network,
// SPEC 29), fastify's own client errors keep their status, and anything
// else is a 500 whose details go to the log (redacted), never to the caller.
// Tenants (SPEC 34): a scope refused or a quota reached is a 403, the
// creates per minute spent a 429, a name another tenant holds a 409 that
// says nothing of whose, and a name not the caller's (or nobody's) a 404.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ConflictError, NameNotFoundError, NameTakenError, PoolExhaustedError, QuotaExceededError, RateLimitedError, ScopeError, ValidationError } from '../client.js';
import type { FieldError } from '../job-table/schema.js';
import { RedisUnavailableError } from '../queue/connection.js';
import { unavailableReason } from '../queue/redis-failure.js';
import { ReplicaAcksError } from '../queue/replica-acks.js';
import { redactSecrets } from '../secrets/redact.js';
import { sendRedisDown, type RedisDownProbe } from './redis-down.js';

export interface ErrorBody {
  error: string;
  message: string;
  fields?: FieldError[];
}

export function validationBody(fields: FieldError[], message?: string): ErrorBody {
  return { error: 'ValidationError', message: message ?? `invalid request: ${fields.map((f) => `${f.field} ${f.message}`).join('; ')}`, fields };
}

const BODY_ERRORS: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'must be a JSON object',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'must be a JSON object, not empty',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'has a wrong Content-Length',
};

const CLIENT_ERROR_NAMES: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
};

function isFastifyError(err: unknown): err is FastifyError {
  return err instanceof Error && typeof (err as Partial<FastifyError>).code === 'string';
}

/** The error handler, answering 503 when a call failed because Redis went away (SPEC 24). */
export function errorHandler(redisDown: RedisDownProbe) {
  return (err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const reason = unavailableReason(err);
    if (reason !== undefined) {
      // The process's outage reporter has logged the outage; the answer says it again.
      const fallback = err instanceof RedisUnavailableError ? err.message : `Redis is not reachable (${reason})`;
      // RedisUnavailableError comes before any command is sent; any other
      // failure of a write may come after its intent was recorded (SPEC 2).
      // A ReplicaAcksError comes after the writes: the master has them, its replicas may not.
      const mayBeRecorded = (err instanceof ReplicaAcksError || !(err instanceof RedisUnavailableError)) && request.method !== 'GET' && request.method !== 'HEAD';
      return sendRedisDown(reply, redisDown() ?? { message: redactSecrets(fallback), retryAfterSeconds: 1 }, { mayBeRecorded });
    }
    return handleError(err, request, reply);
  };
}

/** The answer to a tenant's refusal (SPEC 34), or undefined when `err` is none. */
function tenantRefusal(err: unknown, reply: FastifyReply): FastifyReply | undefined {
  if (err instanceof ScopeError) return reply.code(403).send({ error: 'Forbidden', message: err.message });
  if (err instanceof QuotaExceededError) {
    const { message, vmName: name, tenant, quota, use, asked, limit } = err;
    return reply.code(403).send({ error: 'QuotaExceeded', message, name, tenant, quota, use, asked, limit });
  }
  if (err instanceof RateLimitedError) {
    const { message, vmName: name, tenant, limit, retryAfterSeconds } = err;
    return reply.code(429).header('Retry-After', String(retryAfterSeconds)).send({ error: 'RateLimited', message, name, tenant, limit, retryAfterSeconds });
  }
  if (err instanceof NameTakenError) return reply.code(409).send({ error: 'NameTaken', message: err.message, name: err.vmName });
  if (err instanceof NameNotFoundError) return reply.code(404).send({ error: 'NotFound', message: err.message });
  return undefined;
}

function handleError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (err instanceof ValidationError) return reply.code(400).send(validationBody(err.fields, redactSecrets(err.message)));
  const refused = tenantRefusal(err, reply);
  if (refused !== undefined) return refused;
  if (err instanceof PoolExhaustedError) {
    return reply.code(409).send({ error: 'PoolExhausted', message: err.message, name: err.vmName, pool: err.pool, network: err.network });
  }
  if (err instanceof ConflictError) {
    return reply.code(409).send({ error: 'Conflict', message: redactSecrets(err.message), name: err.vmName });
  }
  if (isFastifyError(err)) {
    const bodyProblem = BODY_ERRORS[err.code];
    if (bodyProblem !== undefined) return reply.code(400).send(validationBody([{ field: 'body', message: bodyProblem }]));
    const status = err.statusCode ?? 500;
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      const limit = request.routeOptions.bodyLimit;
      return reply.code(413).send({ ...validationBody([{ field: 'body', message: `is larger than the ${limit} bytes a request may carry` }]), error: 'PayloadTooLarge' });
    }
    if (status >= 400 && status < 500) {
      return reply.code(status).send({ error: CLIENT_ERROR_NAMES[status] ?? 'BadRequest', message: redactSecrets(err.message) });
    }
  }
  request.log.error({ err }, 'request failed');
  return reply.code(500).send({ error: 'InternalError', message: 'internal error; the server log has the details' });
}

export function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply.code(404).send({ error: 'NotFound', message: `no route ${request.method} ${request.url.split('?')[0] ?? ''}` });
}
