// Reading requests and writing answers the way pveproxy does (F1): JSON
// bodies `{"data": ...}`, errors with the text as reason phrase and
// `message`, 401 and proxy errors with an empty body.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SimAnswerError } from './answer-error.js';

const MAX_FORM_BYTES = 64 * 1024;

/** pveproxy closes the connection after every answer of 400 or more (AnyEvent.pm response, keep_alive = 0). */
function baseHeaders(status: number): Record<string, string> {
  const now = new Date().toUTCString();
  return { 'Cache-Control': 'max-age=0', Connection: status >= 400 ? 'close' : 'Keep-Alive', Pragma: 'no-cache', Server: 'pve-api-daemon/3.0', Expires: now };
}

function send(res: ServerResponse, status: number, reason: string, body: string | undefined): void {
  const headers = baseHeaders(status);
  if (body !== undefined) {
    headers['Content-Length'] = String(Buffer.byteLength(body));
    headers['Content-Type'] = 'application/json;charset=UTF-8';
  }
  // An empty body goes without Content-Length, as pveproxy removes it; Connection: close ends it.
  res.shouldKeepAlive = status < 400;
  res.writeHead(status, reason, headers);
  res.end(body);
}

/** Data already serialized (large lists built from cached parts). */
export class RawJson {
  constructor(readonly json: string) {}
}

export function rawJson(json: string): RawJson {
  return new RawJson(json);
}

/** Data with attributes beside it (set_result_attrib, e.g. a task log's `total`). */
export class WithAttributes {
  constructor(
    readonly data: unknown,
    readonly attributes: Record<string, unknown>,
  ) {}
}

export function sendData(res: ServerResponse, data: unknown): void {
  if (data instanceof WithAttributes) return send(res, 200, 'OK', JSON.stringify({ ...data.attributes, data: data.data ?? null }));
  send(res, 200, 'OK', data instanceof RawJson ? `{"data":${data.json}}` : JSON.stringify({ data: data ?? null }));
}

export function sendError(res: ServerResponse, err: SimAnswerError): void {
  if (err.emptyBody) return send(res, err.status, err.reason, undefined);
  const body = err.errors === undefined ? { data: null, message: err.bodyMessage } : { errors: err.errors, data: null, message: err.bodyMessage };
  send(res, err.status, err.reason, JSON.stringify(body));
}

/** `$self->error(...)`: the text as reason (first line) and as a body with no content type (pveproxy's upload parser). */
export function sendPlainError(res: ServerResponse, status: number, text: string): void {
  const headers = baseHeaders(status);
  headers['Content-Length'] = String(Buffer.byteLength(text));
  res.shouldKeepAlive = false;
  res.writeHead(status, /^(.*)$/m.exec(text)?.[1] ?? '', headers);
  res.end(text);
}

/** A plain JSON answer for the /_sim/ endpoints. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) });
  res.end(text);
}

export async function readText(req: IncomingMessage, limit = MAX_FORM_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new SimAnswerError(413, 'Request Entity Too Large', undefined, true);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function scalar(value: unknown): string {
  if (typeof value === 'boolean') return value ? '1' : '0';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Parameters of a form (or JSON) body, as pveproxy reads POST and PUT bodies. */
export async function readFormParams(req: IncomingMessage): Promise<Record<string, string>> {
  const text = await readText(req);
  if (text === '') return {};
  if (/^application\/json/i.test(req.headers['content-type'] ?? '')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new SimAnswerError(400, 'malformed JSON body\n');
    }
    if (typeof parsed !== 'object' || parsed === null) return {};
    return Object.fromEntries(Object.entries(parsed as Record<string, unknown>).map(([k, v]) => [k, scalar(v)]));
  }
  // decode_urlencoded splits on `;` as well as `&` (AnyEvent.pm, audit 12b).
  return Object.fromEntries(new URLSearchParams(text.replace(/;/g, '&')));
}
