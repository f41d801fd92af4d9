// Server-sent events framing (the WHATWG EventSource format): one event is
// `event:`, `id:` and `data:` lines and a blank line; a line starting with
// `:` is a comment, which clients ignore and proxies see as traffic.
import { PassThrough } from 'node:stream';
import type { FastifyReply } from 'fastify';

export interface StreamEvent {
  event: string;
  /** The client's Last-Event-ID after this event; an event without one leaves it as it was. */
  id?: string;
  data: unknown;
}

/** One event as its bytes on the wire. JSON has no raw newline, so `data` is one line. */
export function frameEvent(message: StreamEvent): string {
  const id = message.id === undefined ? '' : `id: ${message.id}\n`;
  return `event: ${message.event}\n${id}data: ${JSON.stringify(message.data)}\n\n`;
}

export function frameComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}

export interface EventStream {
  send(message: StreamEvent): void;
  comment(text: string): void;
  /** Ends the response (the server closes the stream). */
  end(): void;
  /** True once ended by end() or by the client going away. */
  readonly closed: boolean;
  /** Called once when the stream closes, whoever closed it. */
  onClose(listener: () => void): void;
}

/**
 * Answers the request with an event stream: 200, text/event-stream, no
 * caching and no proxy buffering. fastify sends the stream, so its hooks
 * (the duration metric) run when the server ends it; a client that goes
 * away destroys it, which closes it too.
 */
export function openEventStream(reply: FastifyReply): EventStream {
  const body = new PassThrough();
  let closed = false;
  body.once('close', () => {
    closed = true;
  });
  void reply
    .code(200)
    .header('Content-Type', 'text/event-stream; charset=utf-8')
    .header('Cache-Control', 'no-cache')
    .header('X-Accel-Buffering', 'no')
    .send(body);
  const write = (text: string): void => {
    if (!closed) body.write(text);
  };
  return {
    send: (message) => write(frameEvent(message)),
    comment: (text) => write(frameComment(text)),
    end: () => {
      if (closed) return;
      closed = true;
      body.end();
    },
    get closed() {
      return closed;
    },
    onClose: (listener) => {
      body.once('close', listener);
    },
  };
}
