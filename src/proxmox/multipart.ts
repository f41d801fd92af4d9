// The seed upload body (SPEC 18, F12): the `content=iso` field, then the
// file part `filename`, framed by hand so the file streams through with
// an exact Content-Length and is never held in memory whole.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { UploadSource } from './api.js';

export interface MultipartBody {
  contentType: string;
  contentLength: number;
  body: Readable;
}

/** Quotes a file name for Content-Disposition the way browsers do. */
function quoteFilename(filename: string): string {
  return filename.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

async function* frame(head: Buffer, source: UploadSource, tail: Buffer): AsyncGenerator<Buffer> {
  yield head;
  const stream = source.open();
  let sent = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer | string>) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      sent += bytes.length;
      if (sent > source.size) throw new Error(`upload source gave more than its declared ${source.size} bytes`);
      yield bytes;
    }
  } finally {
    stream.destroy();
  }
  if (sent !== source.size) throw new Error(`upload source ended after ${sent} of its declared ${source.size} bytes`);
  yield tail;
}

export function isoUploadBody(filename: string, source: UploadSource): MultipartBody {
  const boundary = `----pve-provisioner-${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\n` +
      'Content-Disposition: form-data; name="content"\r\n\r\n' +
      'iso\r\n' +
      `--${boundary}\r\n` +
      `Content-Disposition: form-data; name="filename"; filename="${quoteFilename(filename)}"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: head.length + source.size + tail.length,
    body: Readable.from(frame(head, source, tail), { objectMode: false }),
  };
}
