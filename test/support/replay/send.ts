// One recorded request sent again over HTTP (SPEC 33), as the client sends
// it: a query string, a form body, or an ISO upload of the recorded name
// and size (zeros: the content was never kept).
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { isoUploadBody } from '../../../src/proxmox/multipart.js';
import type { IndexedExchange, Params } from '../../../src/verify/record/recording-index.js';
import type { Answer } from './compare.js';

const API = '/api2/json';

function encoded(params: Params): string {
  return new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();
}

interface Outgoing {
  headers: Record<string, string>;
  body?: Readable | string;
}

function outgoing(e: IndexedExchange, authorization: string | undefined): Outgoing {
  const headers: Record<string, string> = { accept: 'application/json', ...(authorization === undefined ? {} : { authorization }) };
  if (e.upload !== undefined) {
    const { size } = e.upload;
    const upload = isoUploadBody(e.upload.filename, { size, open: () => Readable.from(size > 0 ? [Buffer.alloc(size)] : []) });
    return { headers: { ...headers, 'content-type': upload.contentType, 'content-length': String(upload.contentLength) }, body: upload.body };
  }
  if (e.form !== undefined) {
    const body = encoded(e.form);
    return { headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) }, body };
  }
  return { headers };
}

/** Sends the request to the simulator at `baseUrl`, with `path` (UPIDs already mapped); resolves its answer, status 0 with the error when none came. */
export function sendRecorded(baseUrl: string, e: IndexedExchange, path: string, authorization: string | undefined): Promise<Answer> {
  const url = new URL(`${API}${path}${e.query === undefined ? '' : `?${encoded(e.query)}`}`, baseUrl);
  const { headers, body } = outgoing(e, authorization);
  return new Promise((resolve) => {
    const req = request(url, { method: e.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, reason: res.statusMessage ?? '', body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (err) => resolve({ status: 0, reason: err.message, body: '' }));
    });
    req.on('error', (err) => resolve({ status: 0, reason: err.message, body: '' }));
    if (body instanceof Readable) body.pipe(req);
    else req.end(body);
  });
}
