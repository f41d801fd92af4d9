// A bare /metrics endpoint for a process with no web server (a worker on
// its own, SPEC 9): prom-client counters live in the process that counts,
// so a separate worker process must be scraped by itself. node:http only.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { DEFAULT_LISTENER_LIMITS, boundConnections, serverConstructionOptions, type ListenerLimits } from '../listener-limits.js';
import { silentLogger, type Logger } from '../log.js';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

export interface MetricsServerOptions {
  /** The http.* timeouts and connection bound; DEFAULT_LISTENER_LIMITS when absent. */
  limits?: ListenerLimits;
  /** Where a refused connection is reported. */
  logger?: Logger;
}

export async function serveMetrics(registry: Registry, host: string, port: number, options: MetricsServerOptions = {}): Promise<MetricsServer> {
  const limits = options.limits ?? DEFAULT_LISTENER_LIMITS;
  const server = createServer(serverConstructionOptions(limits), (req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'NotFound', message: 'only GET /metrics is served here' }));
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'InternalError', message: 'collecting metrics failed' })),
    );
  });
  boundConnections(server, limits, options.logger ?? silentLogger(), 'worker metrics');
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
