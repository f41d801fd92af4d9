// Where a worker's webhook events go (SPEC 27, 34): webhooks.url when
// set, and each tenant's URL as the web process published it. A tenant's
// copy is signed with a key derived from the webhook secret, so with
// webhooks.url empty the secret file is still read when it is there; with
// no usable secret, a tenant URL gets nothing and one warning says why.
import type { Config } from '../config/types.js';
import type { Logger } from '../log.js';
import type { WebhookQueue } from '../queue/webhook-queue.js';
import type { TenantUrlOf } from '../webhooks/tenant-urls.js';
import type { WebhookRoutes } from './webhook-events.js';

/** The deliveries of a worker with no secret: the routes below never add one. */
export const NO_DELIVERIES: Pick<WebhookQueue, 'add'> = {
  add: () => Promise.reject(new Error('no webhook delivery can be added without the webhook secret')),
};

export function webhookRoutes(config: Pick<Config, 'webhooks'>, secret: { secret: string } | { problem: string }, tenantUrl: TenantUrlOf, logger: Logger): WebhookRoutes {
  if ('secret' in secret) return { operator: config.webhooks.url !== '', tenantUrl };
  let warned = false;
  return {
    operator: false,
    async tenantUrl(tenant) {
      // Checked again after the read: two jobs ending at once both read the URL.
      if (!warned && (await tenantUrl(tenant)) !== undefined && !warned) {
        warned = true;
        logger.warn({ tenant }, `tenant ${tenant} has a webhook URL, but ${secret.problem}: no tenant's webhooks are sent until the worker restarts with a secret`);
      }
      return undefined;
    },
  };
}
