// One webhook POST (SPEC 27) with got: the stored body as it is, signed,
// within webhooks.timeoutMs. Anything but a 2xx answer throws, so the
// delivery queue retries it. got's own retry and redirects are off: the
// queue is the one retry policy, and a redirect would resend the body
// somewhere webhooks.url does not name. Errors never carry the URL,
// which may hold credentials of its own. Only the status matters: the
// answer is streamed and at most ANSWER_READ_LIMIT_BYTES of it read
// before the connection is closed, so a receiver answering gigabytes
// costs the worker no memory.
import { got, RequestError } from 'got';
import type { Request, Response } from 'got';
import type { WebhookEvent } from './body.js';
import { SIGNATURE_HEADER, signBody } from './signature.js';

export const DELIVERY_ID_HEADER = 'x-delivery-id';
export const EVENT_HEADER = 'x-webhook-event';
export const USER_AGENT = 'pve-provisioner-webhooks/1';

export interface Delivery {
  deliveryId: string;
  event: WebhookEvent;
  /** The JSON body, exactly the bytes signed and sent, the same on every attempt. */
  body: string;
  /**
   * A tenant's copy (SPEC 34): its webhook URL, and the tenant whose key
   * (tenantWebhookKey) signs it; absent, the operator's delivery to
   * webhooks.url under the secret. Never a key or secret.
   */
  url?: string;
  tenant?: string;
}

export interface SendOptions {
  url: string;
  secret: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The receiver as errors name it (never its URL); default `webhooks.url`. */
  receiver?: string;
}

/** The most of a receiver's answer body a delivery reads; the rest is never received. */
export const ANSWER_READ_LIMIT_BYTES = 4096;

export class DeliveryError extends Error {
  override readonly name = 'DeliveryError';
}

/** The headers of one delivery. */
export function deliveryHeaders(delivery: Delivery, secret: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    [SIGNATURE_HEADER]: signBody(delivery.body, secret),
    [DELIVERY_ID_HEADER]: delivery.deliveryId,
    [EVENT_HEADER]: delivery.event,
  };
}

/**
 * The answer's status, once its body has ended or ANSWER_READ_LIMIT_BYTES
 * of it have arrived. The stream is then destroyed: an answer cut short
 * has its socket closed, so Node's keep-alive agent never hands a
 * half-read connection to the next delivery; an answer that ended had its
 * socket returned to the agent already, and the destroy leaves it there.
 */
function answerStatus(stream: Request): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let status = 0;
    let read = 0;
    const done = (): void => {
      stream.destroy();
      resolve(status);
    };
    stream.on('response', (response: Response) => (status = response.statusCode));
    stream.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read >= ANSWER_READ_LIMIT_BYTES) done();
    });
    stream.on('end', done);
    // Stays attached after the answer: an error on the destroyed stream then changes nothing.
    stream.on('error', reject);
  });
}

/** POSTs the delivery; resolves with the 2xx status, throws DeliveryError otherwise. */
export async function sendDelivery(delivery: Delivery, options: SendOptions): Promise<number> {
  let status: number;
  try {
    const stream = got.stream.post(options.url, {
      body: delivery.body,
      headers: deliveryHeaders(delivery, options.secret),
      timeout: { request: options.timeoutMs },
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: false,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    status = await answerStatus(stream);
  } catch (err) {
    const code = err instanceof RequestError ? err.code : 'ERR_UNKNOWN';
    throw new DeliveryError(`webhook receiver (${options.receiver ?? 'webhooks.url'}) not reached: ${code}`);
  }
  if (status < 200 || status > 299) throw new DeliveryError(`webhook receiver (${options.receiver ?? 'webhooks.url'}) answered ${status}`);
  return status;
}
