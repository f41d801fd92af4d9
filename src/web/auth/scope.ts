// What a token's scope lets it do over HTTP (SPEC 34): a `read` token only
// GETs; the admin-only routes (GET /v1/tenants, /metrics and /readyz's
// checks behind http.metricsAuth) want `admin`. A refusal is a ScopeError,
// the error handler's 403, before any body is read or the service called;
// the client refuses the same calls too.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestAsyncHookHandler } from 'fastify';
import { ScopeError } from '../../queue/producer-errors.js';
import { mayWrite } from '../../tenants/types.js';

const READS = new Set(['GET', 'HEAD']);

/** What was asked, in words: the method and the route (its pattern, never what the caller put in the path). */
function actionOf(request: FastifyRequest): string {
  return `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0] ?? ''}`;
}

/** An onRequest hook refusing any method but GET and HEAD to a `read` token. */
export function refuseWritesOfReadScope(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (READS.has(request.method) || mayWrite(request.tenant)) done();
  else done(new ScopeError(request.tenant.name, request.tenant.scope, actionOf(request)));
}

/** Throws the ScopeError of a non-admin token asking an admin-only route. */
export function requireAdmin(request: FastifyRequest): void {
  if (request.tenant.scope !== 'admin') throw new ScopeError(request.tenant.name, request.tenant.scope, actionOf(request));
}

/** `guard` (the bearer check), then the admin scope: a wrong token stays the guard's 401, a right one of another scope is a 403. */
export function adminOnly(guard: onRequestAsyncHookHandler): onRequestAsyncHookHandler {
  return async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    await guard.call(this, request, reply);
    if (!reply.sent) requireAdmin(request);
  };
}
