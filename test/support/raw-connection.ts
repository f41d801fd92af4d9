// A client that speaks HTTP/1.1 by hand over one TCP connection to
// 127.0.0.1, to do what fetch will not: send headers and then trickle a
// body, stop half-way through the headers, or hold a connection idle.
// It records what the server sent and when the server closed it.
import { connect, type Socket } from 'node:net';

export interface RawConnection {
  socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves when the connection is closed, with the ms since it was opened; never rejects. */
  closed: Promise<number>;
  /** Writes `bytes` every `everyMs` until the connection closes or stop(). */
  trickle(bytes: string, everyMs: number): void;
  /** Whether the server has closed the connection (or it failed). */
  isClosed(): boolean;
  stop(): void;
}

/** Opens a connection and resolves once it is connected (or refused: then closed is already settled). */
export function openRaw(port: number): Promise<RawConnection> {
  const socket = connect({ host: '127.0.0.1', port });
  const startedAt = Date.now();
  let text = '';
  let closedFlag = false;
  let timer: NodeJS.Timeout | undefined;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  // A reset (ECONNRESET, EPIPE) is the server closing too.
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => {
    socket.once('close', () => {
      closedFlag = true;
      clearInterval(timer);
      resolve(Date.now() - startedAt);
    });
  });
  const connection: RawConnection = {
    socket,
    received: () => text,
    closed,
    isClosed: () => closedFlag,
    trickle(bytes, everyMs) {
      timer = setInterval(() => {
        if (!socket.destroyed && socket.writable) socket.write(bytes);
      }, everyMs);
    },
    stop() {
      clearInterval(timer);
      socket.destroy();
    },
  };
  return new Promise((resolve) => {
    socket.once('connect', () => resolve(connection));
    socket.once('close', () => resolve(connection));
  });
}

/** Request headers announcing a body of `contentLength` bytes, then `firstBody`. `path` may start with a method (`PUT /x`); POST otherwise. */
export function slowBodyRequest(path: string, contentLength: number, extraHeaders: Record<string, string> = {}, firstBody = '{'): string {
  const [method, target] = path.includes(' ') ? path.split(' ') : ['POST', path];
  const headers = Object.entries({ host: '127.0.0.1', 'content-type': 'application/json', 'content-length': String(contentLength), ...extraHeaders })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `${method} ${target} HTTP/1.1\r\n${headers}\r\n${firstBody}`;
}

/** Resolves when `check` holds, polling every 50 ms; rejects with `what` after `deadlineMs`. */
export async function eventually(what: string, check: () => boolean, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`not within ${deadlineMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
