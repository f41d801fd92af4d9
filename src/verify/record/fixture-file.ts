// One exchange's answer as a fixture file in the project's format
// (fixtures/README.md): `{status, reason, headers, body}`, `body` the
// exact text, `Content-Length` its UTF-8 byte length. Headers that carry
// credentials are dropped, and so are those that describe the wire rather
// than the text kept (the client has already decoded a gzip body).
import type { Exchange } from '../../proxmox/exchange.js';

export interface FixtureFile {
  status: number;
  reason: string;
  headers: Record<string, string>;
  body: string;
}

const DROPPED = /^(set-cookie|cookie|authorization|proxy-authorization|www-authenticate|csrfpreventiontoken|content-encoding|transfer-encoding)$|token|secret|ticket/i;

/** `content-type` as pveproxy spells it: `Content-Type`. */
function headerName(name: string): string {
  return name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1).toLowerCase())
    .join('-');
}

export function fixtureOf(exchange: Exchange): FixtureFile {
  if (exchange.status === 0) return { status: 0, reason: exchange.reason, headers: {}, body: '' };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(exchange.headers)) {
    if (DROPPED.test(name) || name.toLowerCase() === 'content-length') continue;
    headers[headerName(name)] = value;
  }
  headers['Content-Length'] = String(Buffer.byteLength(exchange.body, 'utf8'));
  return { status: exchange.status, reason: exchange.reason, headers, body: exchange.body };
}

/** `0007-get-nodes-pve1-qemu-9001-config.json`: the number in order, the method, a short slug of the path. */
export function fixtureFileName(n: number, method: string, path: string): string {
  const slug = path
    .replace(/UPID(%3A|:)[^/]*/gi, 'upid')
    .toLowerCase()
    .replace(/%[0-9a-f]{2}/g, '-')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return `${String(n).padStart(4, '0')}-${method.toLowerCase()}-${slug || 'root'}.json`;
}
