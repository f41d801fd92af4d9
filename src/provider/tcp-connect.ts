// One TCP connect of readiness `tcp` (SPEC 29): undefined once something
// accepted it (the socket is closed at once, nothing sent), else why not
// (ECONNREFUSED, no answer within the timeout). The job's signal ends it.
import { connect } from 'node:net';

export function tcpConnect(host: string, port: number, timeoutMs: number, signal: AbortSignal): Promise<string | undefined> {
  if (signal.aborted) return Promise.resolve('cancelled');
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let settled = false;
    const done = (why: string | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(why);
    };
    const onAbort = (): void => done('cancelled');
    const timer = setTimeout(() => done(`no answer within ${timeoutMs} ms`), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => done(undefined));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
  });
}
