// Bearer-token check for /v1 (and /metrics when http.metricsAuth): an
// onRequest hook answering 401 with a JSON body and WWW-Authenticate; a
// wrong token is answered only after its address's delay (failed-auth.ts).
// An accepted token's tenant becomes the request's (SPEC 34, request-tenant.ts).
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { ApiToken } from '../../tenants/token-lines.js';
import { SecretSet } from './compare.js';
import type { FailedAuth } from './failed-auth.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

function refuse(reply: FastifyReply, error: string, message: string): FastifyReply {
  return reply
    .code(401)
    .header('WWW-Authenticate', `Bearer realm="pve-provisioner", error="${error}"`)
    .send({ error: 'Unauthorized', message });
}

export function bearerAuth(tokens: readonly ApiToken[], failures: FailedAuth): onRequestAsyncHookHandler {
  const accepted = new SecretSet(tokens.map(({ token }) => token));
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const header = request.headers.authorization;
    if (header === undefined) {
      await refuse(reply, 'invalid_request', 'this route needs "Authorization: Bearer <token>" (a token from http.apiTokensFile)');
      return;
    }
    const match = BEARER.exec(header);
    // Every token is compared (SecretSet): the time says nothing of which one matched.
    const entry = match?.[1] === undefined ? undefined : tokens[accepted.indexOf(match[1])];
    if (entry === undefined) {
      await failures.refusedRequest(request, 'api');
      await refuse(reply, 'invalid_token', 'the bearer token is not accepted');
      return;
    }
    request.tenant = entry.tenant;
  };
}
