// A real local HTTP(S) server for the client tests (as got's own tests
// do): it replays fixtures byte for byte, reason phrase included, and
// records every request it receives.
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Fixture } from './fixtures.js';
import { loadFixture } from './fixtures.js';

export interface TlsMaterial {
  key: string;
  cert: string;
}

export interface RawServer {
  /** `http://127.0.0.1:<port>` or `https://...` */
  url: string;
  /** The ALPN protocol each TLS connection settled on (false: none). */
  alpn: (string | false)[];
  close(): Promise<void>;
}

export interface RecordedRequest {
  method: string;
  /** The path as sent, still percent-encoded, without the query. */
  rawPath: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  httpVersion: string;
  body: Buffer;
}

export type Answer = Fixture | string;

export interface ReplayServer extends RawServer {
  requests: RecordedRequest[];
}

export function sendFixture(res: ServerResponse, fixture: Fixture): void {
  res.writeHead(fixture.status, fixture.reason, fixture.headers);
  res.end(fixture.body);
}

export async function startRawServer(listener: RequestListener, tls?: TlsMaterial): Promise<RawServer> {
  const server: Server = tls
    ? createHttpsServer({ key: tls.key, cert: tls.cert, ALPNProtocols: ['h2', 'http/1.1'] }, listener)
    : createHttpServer(listener);
  const alpn: (string | false)[] = [];
  server.on('secureConnection', (socket: TLSSocket) => alpn.push(socket.alpnProtocol ?? false));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    alpn,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Answers each request with answer(request): a fixture or a fixture name. */
export async function startReplayServer(
  answer: (req: RecordedRequest) => Answer | Promise<Answer>,
  tls?: TlsMaterial,
): Promise<ReplayServer> {
  const requests: RecordedRequest[] = [];
  const raw = await startRawServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://replay');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        rawPath: (req.url ?? '/').split('?')[0] ?? '/',
        query: url.searchParams,
        headers: req.headers,
        httpVersion: req.httpVersion,
        body: await readBody(req),
      };
      requests.push(recorded);
      const chosen = await answer(recorded);
      sendFixture(res, typeof chosen === 'string' ? loadFixture(chosen) : chosen);
    })();
  }, tls);
  return { ...raw, requests };
}
