// A webhook receiver whose 200 answer is a body of `totalBytes` written
// chunk by chunk as the socket drains (never built in memory), reporting
// how much it wrote and whether it finished once each connection closes.
// The delivery tests and bench/webhook-answer.ts use it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const CHUNK = Buffer.alloc(64 * 1024, 'x');

export interface AnswerEnd {
  written: number;
  finished: boolean;
}

export interface EndlessAnswer {
  url: string;
  /** Resolves when the first answer's connection closes. */
  closed: Promise<AnswerEnd>;
  /** Every answer whose connection closed, in order. */
  ended: AnswerEnd[];
  close(): Promise<void>;
}

export async function endlessAnswer(totalBytes: number): Promise<EndlessAnswer> {
  const ended: AnswerEnd[] = [];
  let report: (value: AnswerEnd) => void = () => undefined;
  const closed = new Promise<AnswerEnd>((resolve) => (report = resolve));
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      let written = 0;
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(totalBytes) });
      const pump = (): void => {
        while (written < totalBytes) {
          const chunk = CHUNK.subarray(0, Math.min(CHUNK.length, totalBytes - written));
          written += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      res.on('close', () => {
        const end = { written, finished: res.writableFinished };
        ended.push(end);
        report(end);
      });
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/in`,
    closed,
    ended,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
