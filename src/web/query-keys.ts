// The query parameters each route takes (SPEC 24): a route declares them
// in its config (`takesQuery(...)`), and any other is a 400 naming it, so
// a typo (`?UID=` for `?uid=`) is refused instead of read as absent. A
// route that declares none takes none.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { validationBody } from './error-handler.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The query parameters the route reads; refuseUnknownQuery refuses any other. */
    query?: readonly string[];
  }
}

/** The route options declaring the query parameters a route reads. */
export function takesQuery(...keys: string[]): { config: { query: readonly string[] } } {
  return { config: { query: keys } };
}

/** A preValidation hook: the request's query names only parameters its route declares. */
export async function refuseUnknownQuery(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  const allowed = request.routeOptions.config.query ?? [];
  const query = typeof request.query === 'object' && request.query !== null ? Object.keys(request.query) : [];
  const unknown = query.filter((key) => !allowed.includes(key));
  if (unknown.length === 0) return undefined;
  const takes = allowed.length === 0 ? 'it takes none' : `it takes ${allowed.join(', ')}`;
  const route = `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0] ?? ''}`;
  return reply.code(400).send(validationBody(unknown.map((key) => ({ field: key, message: `is not a query parameter of ${route}; ${takes}` }))));
}
