// Where each tenant's webhooks go (SPEC 34): the web process, which reads
// the tokens file, writes each tenant's webhookUrl into the tenant-webhooks
// hash for the workers, and takes out the tenants that no longer have one.
// Written at start and again on each reconnect, like the producer config.
import type { RedisClient } from '../redis-script.js';
import { keys } from '../redis-keys.js';
import { republishedOnReady } from '../queue/republish.js';
import type { Tenant } from './types.js';

export interface TenantWebhookPublisher {
  write(): Promise<void>;
  stop(): void;
}

/** Makes the hash hold exactly the webhook URLs of `tenants` (one MULTI after reading what it holds). */
export async function publishTenantWebhooks(redis: RedisClient, prefix: string, tenants: readonly Tenant[]): Promise<void> {
  const key = keys.tenantWebhooks(prefix);
  const urls = new Map<string, string>();
  for (const { name, webhookUrl } of tenants) if (webhookUrl !== undefined) urls.set(name, webhookUrl);
  const gone = (await redis.hkeys(key)).filter((name) => !urls.has(name));
  const multi = redis.multi();
  if (gone.length > 0) multi.hdel(key, ...gone);
  if (urls.size > 0) multi.hset(key, Object.fromEntries(urls));
  await multi.exec();
}

export function tenantWebhookPublisher(redis: RedisClient, prefix: string, tenants: readonly Tenant[]): TenantWebhookPublisher {
  return republishedOnReady(redis, () => publishTenantWebhooks(redis, prefix, tenants));
}
