// The webhook signature of SPEC 27: HMAC-SHA256 of the raw body bytes
// with the shared secret, sent as `X-Signature-256: sha256=<hex>`, as
// GitHub signs its webhooks, so receivers can reuse what they have.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-signature-256';

/** `sha256=<hex>` of `body` (the exact bytes sent) under `secret`. */
export function signBody(body: string | Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Whether `header` is the signature of `body` under `secret`, compared in constant time. */
export function verifySignature(body: string | Buffer, secret: string, header: string | undefined): boolean {
  if (header === undefined) return false;
  const expected = Buffer.from(signBody(body, secret));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
