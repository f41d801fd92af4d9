// POST /v1/ready/:token (SPEC 29): a phone-home guest's call, with no
// other auth than its token. cloud-init's phone_home posts a small form
// (application/x-www-form-urlencoded); any body of any type up to
// READY_BODY_BYTES is taken and ignored. A token accepted now is consumed
// and leaves the VM's ready signal (queue/ready-signals.ts): 204. Any
// other (forged, used, expired, malformed, another installation's) is
// the same 404 with the same body, and changes nothing. The request is
// not logged by fastify (its URL holds the token); our line carries a
// hash prefix of it at most.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyPluginCallback, onRequestAsyncHookHandler } from 'fastify';
import type { Logger } from '../../log.js';
import type { ReadyTokens } from '../../queue/ready-signals.js';

/** cloud-init posts the instance id and, at most, the host keys and names: a few KiB. */
export const READY_BODY_BYTES = 16 * 1024;

/** 32 random bytes in base64url (provider/phone-home.ts). */
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

export const READY_REFUSAL = { error: 'NotFound', message: 'not found' } as const;

/** Enough to match a log line to a seed, nothing to call the route with. */
function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 12);
}

export function readyRoute(tokens: ReadyTokens, logger: Logger, redisUp: onRequestAsyncHookHandler): FastifyPluginCallback {
  return (scope: FastifyInstance, _options, done) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: READY_BODY_BYTES }, (_request, _body, parsed) => parsed(null, undefined));
    scope.post<{ Params: { token: string } }>('/v1/ready/:token', { logLevel: 'silent', bodyLimit: READY_BODY_BYTES, onRequest: [redisUp] }, async (request, reply) => {
      const { token } = request.params;
      const binding = TOKEN_RE.test(token) ? await tokens.accept(token) : undefined;
      if (binding === undefined) {
        logger.debug({ token: tokenHash(token) }, 'a call to /v1/ready/<token> with no token to accept');
        return reply.code(404).send(READY_REFUSAL);
      }
      logger.info({ vm: binding.name, uid: binding.uid, token: tokenHash(token) }, `the guest of ${binding.name} phoned home`);
      return reply.code(204).send();
    });
    done();
  };
}
