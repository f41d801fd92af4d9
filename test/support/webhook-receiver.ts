// A webhook receiver for the delivery tests (SPEC 27): a node http server
// that checks every request's signature with the secret, as a backend
// would (with node:crypto, not the service's code), and keeps each request. It answers 200, or what `answer` says:
// a status, or 'hold' to keep the request open (a worker killed while it
// waits). It can be started later on a port chosen before (a receiver
// that is down, then up).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { WebhookBody } from '../../src/webhooks/body.js';
import { eventually } from './redis.js';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: WebhookBody;
  /** The X-Signature-256 header matched the raw body under the secret. */
  signatureValid: boolean;
  at: number;
  status: number | 'hold';
}

export type Answer = (request: ReceivedRequest, index: number) => number | 'hold';

export interface WebhookReceiver {
  readonly url: string;
  readonly received: ReceivedRequest[];
  /** What the next requests get; 200 by default. */
  answer: Answer;
  listen(): Promise<void>;
  /** Resolves with the first request `match` accepts, waiting for it. */
  waitFor(match: (r: ReceivedRequest) => boolean, timeoutMs?: number): Promise<ReceivedRequest>;
  close(): Promise<void>;
}

/** The receiver's own check, as the README tells a backend to write it (not the service's code). */
function signedBy(raw: Buffer, secret: string, header: string | string[] | undefined): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`);
  const given = Buffer.from(typeof header === 'string' ? header : '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function webhookReceiver(port: number, secret: string): WebhookReceiver {
  const received: ReceivedRequest[] = [];
  const held: ServerResponse[] = [];
  let server: Server | undefined;
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${port}/hooks/pvep`,
    received,
    answer: () => 200,
    async listen() {
      const listening = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const request: ReceivedRequest = {
            method: req.method ?? '',
            path: req.url ?? '',
            headers: req.headers,
            raw,
            body: JSON.parse(raw) as WebhookBody,
            signatureValid: signedBy(Buffer.concat(chunks), secret, req.headers['x-signature-256']),
            at: Date.now(),
            status: 200,
          };
          request.status = receiver.answer(request, received.length);
          received.push(request);
          if (request.status === 'hold') held.push(res);
          else res.writeHead(request.status).end();
        });
      });
      server = listening;
      await new Promise<void>((resolve) => listening.listen(port, '127.0.0.1', resolve));
    },
    waitFor: (match, timeoutMs = 20_000) => eventually(() => Promise.resolve(received.find(match)), timeoutMs),
    async close() {
      for (const res of held) res.destroy();
      const closing = server;
      server = undefined;
      if (!closing) return;
      const closed = new Promise<void>((resolve) => closing.close(() => resolve()));
      closing.closeAllConnections();
      await closed;
    },
  };
  return receiver;
}
