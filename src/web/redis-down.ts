// The web process while Redis is down (SPEC 24): every route that needs
// Redis answers 503 with Retry-After and the reason in words, at once,
// instead of a 500 with ioredis's text or a request hanging on a retry.
// A request refused so was not accepted: nothing of it reached Redis.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RedisClient } from '../redis-script.js';
import { unreachableLine } from '../queue/redis-failure.js';
import { redisPlaceOf, type RedisConnection } from '../queue/redis-target.js';
import { redisOutageReporter } from '../queue/redis-outage.js';

export interface RedisDown {
  /** The one line: where Redis is, why it is not reachable, what to check. */
  message: string;
  retryAfterSeconds: number;
}

/** undefined while Redis answers. */
export type RedisDownProbe = () => RedisDown | undefined;

export const redisNeverDown: RedisDownProbe = () => undefined;

/** Down while the web process's own connection is not ready; the reason is the process's outage reporter's. */
export function redisDownProbe(redis: RedisClient, target: string | RedisConnection): RedisDownProbe {
  const { address, check } = redisPlaceOf(target);
  const reporter = redisOutageReporter(address, check);
  return () => {
    if (redis.status === 'ready') return undefined;
    const reason = reporter.current()?.reason ?? (redis.status === 'connecting' || redis.status === 'wait' ? 'not connected yet' : 'not connected');
    return { message: unreachableLine(address, reason, check), retryAfterSeconds: reporter.retryAfterSeconds() };
  };
}

export interface RedisDownAnswer {
  /**
   * A write that failed after it started talking to Redis: its intent may
   * have been recorded before Redis went away, and a recorded intent is
   * carried out (SPEC 2, 5). Repeating the same request tells which.
   */
  mayBeRecorded?: boolean;
}

export function sendRedisDown(reply: FastifyReply, down: RedisDown, answer: RedisDownAnswer = {}): FastifyReply {
  const outcome =
    answer.mayBeRecorded === true
      ? 'The request may have been recorded before Redis went away, and then it is carried out: repeat the same request once Redis answers to learn which'
      : 'Nothing was accepted';
  return reply
    .code(503)
    .header('Retry-After', String(down.retryAfterSeconds))
    .send({
      error: 'RedisUnavailable',
      message: `${down.message}. ${outcome}; try again in ${down.retryAfterSeconds} s.`,
      retryAfterSeconds: down.retryAfterSeconds,
      ...(answer.mayBeRecorded === true ? { mayBeRecorded: true } : {}),
    });
}

/** An onRequest hook for a scope whose routes all need Redis. */
export function refuseWhileRedisDown(probe: RedisDownProbe) {
  return async (_request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const down = probe();
    return down === undefined ? undefined : sendRedisDown(reply, down);
  };
}
