// Timeouts and a connection bound for every HTTP(S) listener the service
// opens (SPEC 24): the web app, a lone worker's /metrics server and the
// simulator. Without them a client that trickles a body, or opens
// connections and says nothing, holds a file descriptor for ever, and
// enough of them starve every other listener and Redis in the process.
import type { Server } from 'node:http';
import type { Logger } from './log.js';

export interface ListenerLimits {
  /** Longest time to receive a whole request, headers and body (ms). */
  requestTimeoutMs: number;
  /** A connection with no traffic either way for this long is closed (ms). */
  idleTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long (ms). */
  keepAliveTimeoutMs: number;
  /** Connections one listener holds at once; more are closed on arrival. */
  maxConnections: number;
}

export const DEFAULT_LISTENER_LIMITS: ListenerLimits = {
  requestTimeoutMs: 30_000,
  idleTimeoutMs: 120_000,
  keepAliveTimeoutMs: 72_000,
  maxConnections: 1000,
};

/** The http.* keys (SPEC 7) as the limits of a listener. */
export function listenerLimitsOf(http: ListenerLimits): ListenerLimits {
  const { requestTimeoutMs, idleTimeoutMs, keepAliveTimeoutMs, maxConnections } = http;
  return { requestTimeoutMs, idleTimeoutMs, keepAliveTimeoutMs, maxConnections };
}

/**
 * What node:http takes only when the server is made. Node checks the
 * request timeout on a timer (30 s by default), so a 30 s timeout could
 * run to a minute: the timer runs at a quarter of the timeout, at most
 * once a second.
 */
export function serverConstructionOptions(limits: ListenerLimits): { requestTimeout: number; headersTimeout: number; keepAliveTimeout: number; connectionsCheckingInterval: number } {
  return {
    requestTimeout: limits.requestTimeoutMs,
    headersTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.requestTimeoutMs / 4))),
  };
}

/** How often the warning about refused connections may be repeated. */
const DROP_WARNING_EVERY_MS = 60_000;

/**
 * Sets the idle timeout and the connection bound on a server made with
 * serverConstructionOptions, and warns when the bound refuses a
 * connection: once, then at most once a minute with the count since.
 */
export function boundConnections(server: Server, limits: ListenerLimits, logger: Logger, listener: string): void {
  server.setTimeout(limits.idleTimeoutMs);
  server.maxConnections = limits.maxConnections;
  let dropped = 0;
  let warnedAt = Number.NEGATIVE_INFINITY;
  server.on('drop', () => {
    dropped += 1;
    const now = Date.now();
    if (now - warnedAt < DROP_WARNING_EVERY_MS) return;
    logger.warn(
      { listener, maxConnections: limits.maxConnections, refused: dropped },
      `${listener}: ${limits.maxConnections} connections open (http.maxConnections); refused ${dropped} new connection(s) since the last warning`,
    );
    warnedAt = now;
    dropped = 0;
  });
}
