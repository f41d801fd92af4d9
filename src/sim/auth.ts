// API token check (F22): no credentials is `401 No ticket`; a wrong secret
// or an unknown token id is `401 Authentication failed!`. The header's
// value is compared and dropped here; it is never stored or logged.
import { timingSafeEqual } from 'node:crypto';
import { bareError } from './answer-error.js';
import type { TaskOwner } from './tasks.js';
import { texts } from './texts.js';

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The owner of an accepted token (`root@pam!provisioner=...` is user root@pam, token provisioner). */
export function checkToken(header: string | undefined, accepted: readonly string[]): TaskOwner {
  const match = header === undefined ? null : /^PVEAPIToken[= ](\S+)$/.exec(header.trim());
  if (match === null) throw bareError(401, texts.noTicket);
  const given = match[1] as string;
  const token = accepted.find((candidate) => sameText(candidate, given));
  if (token === undefined) throw bareError(401, texts.authFailed);
  const [user = '', rest = ''] = token.split('!');
  return { user, tokenid: rest.slice(0, rest.indexOf('=')) };
}
