// The web app's side of the listener limits (SPEC 24, src/listener-limits.ts):
// fastify's own timeout options, and a refusal that closes its connection.
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { ServerOptions } from 'node:http';
import { serverConstructionOptions, type ListenerLimits } from '../listener-limits.js';

type TimeoutOptions = Pick<FastifyServerOptions, 'requestTimeout' | 'connectionTimeout' | 'keepAliveTimeout'> & { http: ServerOptions };

export function fastifyTimeoutOptions(limits: ListenerLimits): TimeoutOptions {
  const { requestTimeout, keepAliveTimeout, headersTimeout, connectionsCheckingInterval } = serverConstructionOptions(limits);
  // requestTimeout goes to the constructor too: Node refuses a headersTimeout
  // above the request timeout it is made with (its own 300 s when none).
  return { requestTimeout, keepAliveTimeout, connectionTimeout: limits.idleTimeoutMs, http: { requestTimeout, headersTimeout, connectionsCheckingInterval } };
}

/** 401 (no or a wrong credential) and 413 (too large) are sent before the body is read; the rest of it would hold the connection. */
const REFUSED_UNREAD = new Set([401, 413]);

/**
 * A request with a body to no route is answered 404 before the body is
 * read, and its connection closed: fastify would otherwise read (up to
 * the body limit) and parse a body nobody asked for, from a client with
 * no token.
 */
export function refuseUnknownPathsUnread(app: FastifyInstance, notFound: (request: FastifyRequest, reply: FastifyReply) => FastifyReply): void {
  app.addHook('preParsing', (request, reply, payload, done) => {
    const { 'content-length': length, 'transfer-encoding': chunked } = request.headers;
    const hasBody = (length !== undefined && length !== '0') || chunked !== undefined;
    if (!request.is404 || !hasBody) return done(null, payload);
    void notFound(request, reply.header('connection', 'close'));
  });
}

/** Such answers close their connection instead of reading the body they refuse. */
export function closeAfterRefusal(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (REFUSED_UNREAD.has(reply.statusCode)) void reply.header('connection', 'close');
    done(null, payload);
  });
}
