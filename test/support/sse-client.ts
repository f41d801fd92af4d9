// A server-sent events reader over fetch, parsing the wire format as the
// WHATWG EventSource does (event, id, data fields; `:` comments), so the
// tests see exactly what a browser or `curl -N` would.
import { get } from 'node:http';

export interface ReadEvent {
  event: string;
  id?: string;
  data: unknown;
}

export interface EventStreamRead {
  status: number;
  headers: Headers;
  events: ReadEvent[];
  comments: string[];
  /** The body as received, for failure messages. */
  text: string;
  /** True when the server ended the body; false when read() stopped early (stopWhen or the abort). */
  serverClosed: boolean;
}

export interface ReadOptions {
  headers?: Record<string, string>;
  /** Stop reading (and disconnect) once this holds for the events so far. */
  stopWhen?: (events: ReadEvent[]) => boolean;
  signal?: AbortSignal;
}

function parseBlock(block: string, into: EventStreamRead): void {
  let event = 'message';
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      into.comments.push(line.slice(1).trim());
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'id') id = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length > 0) into.events.push({ event, ...(id === undefined ? {} : { id }), data: JSON.parse(data.join('\n')) as unknown });
}

/**
 * GET url and read its event stream until the server closes it, stopWhen
 * holds, or signal aborts; then the socket is destroyed. node:http, not
 * fetch: fetch's pool keeps a socket of its own open after an abort,
 * which holds a server's close.
 */
export function readEventStream(url: string, options: ReadOptions = {}): Promise<EventStreamRead> {
  return new Promise((resolve, reject) => {
    const request = get(url, { headers: { accept: 'text/event-stream', ...options.headers }, agent: false }, (res) => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
      const read: EventStreamRead = { status: res.statusCode ?? 0, headers, events: [], comments: [], text: '', serverClosed: false };
      let pending = '';
      const finish = (): void => {
        options.signal?.removeEventListener('abort', stop);
        resolve(read);
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        read.text += chunk;
        pending += chunk;
        let end = pending.indexOf('\n\n');
        while (end !== -1) {
          parseBlock(pending.slice(0, end), read);
          pending = pending.slice(end + 2);
          end = pending.indexOf('\n\n');
        }
        if (options.stopWhen?.(read.events) === true) stop();
      });
      res.on('end', () => {
        read.serverClosed = true;
        finish();
      });
      res.on('close', finish);
    });
    const stop = (): void => {
      request.destroy();
    };
    if (options.signal?.aborted === true) stop();
    options.signal?.addEventListener('abort', stop);
    request.on('error', (err) => {
      if (!request.destroyed || (err as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(err);
    });
  });
}
