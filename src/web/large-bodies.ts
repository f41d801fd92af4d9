// How many large request bodies the web process holds at once (SPEC 24).
// The body limit (body-limit.ts) lets the largest valid create fit however
// its JSON is escaped, about 2.3 MiB at the defaults; fastify holds a body
// as text and then as the parsed object, so http.maxConnections clients
// with a token each sending one could make the process hold gigabytes.
// A body over SMALL_BODY_BYTES (every ordinary create) takes one of
// LARGE_BODIES_AT_ONCE places from before it is read until its answer
// has gone; with none free it is 503 with Retry-After, its body unread.
import type { FastifyInstance } from 'fastify';

/** Bodies up to this size are never held back: the limit the API had before it followed the field table. */
export const SMALL_BODY_BYTES = 256 * 1024;
export const LARGE_BODIES_AT_ONCE = 16;
const RETRY_AFTER_SECONDS = 1;

/** A body whose size is not known ahead (chunked) counts as large. */
function mayBeLarge(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  if (typeof length === 'string') return Number(length) > SMALL_BODY_BYTES;
  return headers['transfer-encoding'] !== undefined;
}

export function boundLargeBodies(app: FastifyInstance, atOnce = LARGE_BODIES_AT_ONCE): void {
  let reading = 0;
  app.addHook('preParsing', (request, reply, payload, done) => {
    if (!mayBeLarge(request.headers)) return done(null, payload);
    if (reading >= atOnce) {
      void reply
        .code(503)
        .header('retry-after', String(RETRY_AFTER_SECONDS))
        .header('connection', 'close')
        .send({
          error: 'ServiceUnavailable',
          message: `${atOnce} request bodies over ${SMALL_BODY_BYTES} bytes are being read already; nothing was accepted, try again in ${RETRY_AFTER_SECONDS} s.`,
          retryAfterSeconds: RETRY_AFTER_SECONDS,
        });
      return;
    }
    reading += 1;
    reply.raw.once('close', () => {
      reading -= 1;
    });
    done(null, payload);
  });
}
