// What Bull Board's API may do (SPEC 24). Read-only (the default), every
// route that changes something (any method but GET and HEAD: retry,
// promote, clean, add, duplicate, remove, empty, obliterate, pause,
// resume, concurrency, rate limits, job data, delays, priorities,
// schedulers) answers 405, whatever the UI shows. Writable, adding a job
// and replacing a job's data stay refused: they would bypass the desired
// state the API records (SPEC 2), and the board shows userData and
// networkConfig only as a placeholder, which "Duplicate" would copy in as
// the new job's user-data. While Redis is down its API answers 503.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendRedisDown, type RedisDownProbe } from './redis-down.js';

export interface BoardGuardOptions {
  basePath: string;
  writable: boolean;
  redisDown: RedisDownProbe;
}

const READS = new Set(['GET', 'HEAD']);

/** Route patterns (after the base path) that write job data. */
const DATA_WRITES = ['/api/queues/:queueName/add', '/api/queues/:queueName/:jobId/update-data'];

const READ_ONLY_MESSAGE = 'Bull Board is read-only: set http.boardWritable (HTTP_BOARD_WRITABLE=true) to let board users change jobs and queues';
const DATA_WRITE_MESSAGE =
  'Bull Board never adds jobs or replaces job data: they would bypass the desired state, and the board holds userData and networkConfig only as their size. Use the API (POST /v1/vms, DELETE /v1/vms/{name})';

function methodNotAllowed(reply: FastifyReply, message: string): FastifyReply {
  return reply.code(405).header('Allow', 'GET, HEAD').send({ error: 'MethodNotAllowed', message });
}

export function boardGuard(options: BoardGuardOptions) {
  const apiPrefix = `${options.basePath}/api/`;
  const dataWrites = new Set(DATA_WRITES.map((route) => `${options.basePath}${route}`));
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    // By the matched route, not the raw URL, which percent-encoding could disguise.
    const route = request.routeOptions.url ?? '';
    if (!READS.has(request.method)) {
      // Every changing route of the board, known today or added by a later @bull-board.
      if (!options.writable) return methodNotAllowed(reply, READ_ONLY_MESSAGE);
      if (dataWrites.has(route)) return methodNotAllowed(reply, DATA_WRITE_MESSAGE);
    }
    if (!route.startsWith(apiPrefix)) return undefined;
    const down = options.redisDown();
    return down === undefined ? undefined : sendRedisDown(reply, down);
  };
}
