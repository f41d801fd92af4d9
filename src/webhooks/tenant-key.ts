// A tenant's own webhook signing key (SPEC 34): derived from the one
// webhook secret, so no second secret is stored, and different for each
// tenant, so a tenant holding its key cannot sign another tenant's events.
// The operator hands it over (`pve-provisioner tenants --webhook-key`).
import { createHmac } from 'node:crypto';

/** HMAC-SHA256 of `pvep-tenant:<tenant>` under the webhook secret, as lowercase hex: the key the tenant's deliveries are signed with. */
export function tenantWebhookKey(secret: string, tenant: string): string {
  return createHmac('sha256', secret).update(`pvep-tenant:${tenant}`).digest('hex');
}
