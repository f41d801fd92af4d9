// Where each tenant's webhooks go (SPEC 34), as the web process published
// them from the tokens file (keys.tenantWebhooks), read by the workers at
// event time: one HGETALL kept for TENANT_URLS_TTL_MS, so a changed tokens
// file reaches the deliveries within that long of the web's restart.
import type { RedisClient } from '../redis-script.js';
import { keys } from '../redis-keys.js';
import { passwordOf } from '../secrets/known-files.js';
import { registerSecret } from '../secrets/redact.js';

export const TENANT_URLS_TTL_MS = 10_000;

/** The tenant's webhook URL, or undefined when it has none. */
export type TenantUrlOf = (tenant: string) => Promise<string | undefined>;

export function tenantWebhookUrls(redis: RedisClient, prefix: string, clock: () => number = Date.now): TenantUrlOf {
  let read: { at: number; urls: Promise<Record<string, string>> } | undefined;
  const fresh = (): Promise<Record<string, string>> => {
    const now = clock();
    if (read !== undefined && now - read.at < TENANT_URLS_TTL_MS) return read.urls;
    const urls = redis.hgetall(keys.tenantWebhooks(prefix)).then((found) => {
      // A URL's password never shows in a log line or an error.
      for (const url of Object.values(found)) registerSecret(passwordOf(url));
      return found;
    });
    const current = { at: now, urls };
    read = current;
    // A failed read is not kept: the next event reads again.
    urls.catch(() => {
      if (read === current) read = undefined;
    });
    return urls;
  };
  return async (tenant) => {
    const url = (await fresh())[tenant];
    return url === undefined || url === '' ? undefined : url;
  };
}
