// The OpenAPI document's part on tenants (SPEC 34): GET /tenants/me and
// GET /tenants with their views, the refusals a tenant's token meets (403
// Forbidden or QuotaExceeded, 429 RateLimited, 409 NameTaken) and the
// fields those answers carry.
import { HELD_QUOTAS, QUOTA_NAMES, TENANT_SCOPES } from '../tenants/types.js';

import { answer, json, ref, type Schema } from './openapi-parts.js';
const count = (description: string): Schema => ({ type: 'integer', minimum: 0, description });

/** The Error fields of a tenant's refusals. */
export const tenantErrorProperties: Record<string, Schema> = {
  name: { type: 'string', description: 'The VM name the call was about (Conflict, NameTaken, QuotaExceeded, RateLimited, ...).' },
  tenant: { type: 'string', description: 'With QuotaExceeded and RateLimited: the tenant of the token.' },
  quota: { type: 'string', enum: [...HELD_QUOTAS], description: 'With QuotaExceeded: the quota the create would pass.' },
  use: { type: 'integer', description: 'With QuotaExceeded: what the tenant holds of that quota now.' },
  asked: { type: 'integer', description: 'With QuotaExceeded: what this create would add.' },
  limit: { type: 'integer', description: 'With QuotaExceeded: the quota. With RateLimited: the creates per minute.' },
  retryAfterSeconds: { type: 'integer', description: 'With RateLimited: whole seconds until a create is taken again (also the Retry-After header).' },
};

/** A write's 403 when the token's scope is `read`. */
export const FORBIDDEN_WRITE: Schema = answer("The token's scope is read, which only GETs (error Forbidden, SPEC 34); nothing changed.", ref('Error'));

/** A create's refusals by its tenant (SPEC 34): 403 for a scope or a quota, 429 for the creates per minute. */
export const tenantCreateAnswers: Record<string, Schema> = {
  '403': answer(
    "The token's scope is read (error Forbidden), or the create would take its tenant past a quota (error QuotaExceeded, with tenant, quota, use, asked and limit): nothing was recorded; the create may pass once a VM of the tenant is gone.",
    ref('Error'),
  ),
  '429': {
    description: "The tenant's creates per minute are spent (error RateLimited, with tenant, limit and retryAfterSeconds): nothing was recorded; send it again after Retry-After.",
    headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } },
    ...json(ref('Error')),
  },
};

/** What POST /vms's 409 says of a name another tenant holds. */
export const NAME_TAKEN_TEXT = 'Or (error NameTaken) the name is held by another tenant: VM names are one namespace; choose another.';

/** A name call's 404 for a non-admin tenant: another tenant's name is not found. */
export const NOT_OWN_NAME: Schema = answer("No present VM has this name among the token's tenant's (another tenant's name is not found, SPEC 34).", ref('Error'));

export const tenantSchemas: Record<string, Schema> = {
  TenantQuotas: {
    type: 'object',
    description: 'What the tenant may hold at once, and create per minute; a quota left out is no limit.',
    properties: Object.fromEntries(QUOTA_NAMES.map((quota) => [quota, { type: 'integer', minimum: 1 }])),
  },
  TenantUsage: {
    type: 'object',
    description: "What the tenant holds now: each VM accepted and not yet gone, its sizes summed.",
    required: [...HELD_QUOTAS],
    properties: {
      vms: count('VMs held.'),
      cores: count('Their cores.'),
      memoryMiB: count('Their memory, MiB.'),
      diskGiB: count('Their disks, GiB.'),
    },
  },
  TenantUsageView: {
    type: 'object',
    required: ['tenant', 'quotas', 'usage'],
    properties: {
      tenant: { type: 'string' },
      scope: { type: 'string', enum: [...TENANT_SCOPES], description: "The asking token's scope (GET /tenants/me); absent in GET /tenants." },
      quotas: ref('TenantQuotas'),
      usage: ref('TenantUsage'),
    },
  },
  TenantList: { type: 'object', required: ['tenants'], properties: { tenants: { type: 'array', items: ref('TenantUsageView') } } },
};

/** GET /tenants/me and GET /tenants; `errors` are the document's own. */
export function tenantPaths(errors: Record<string, Schema>): Schema {
  return {
    '/tenants/me': {
      get: {
        operationId: 'getOwnTenant',
        summary: "The token's tenant (SPEC 34): its scope, quotas and what it holds now",
        responses: { '200': answer("The token's tenant.", ref('TenantUsageView')), ...errors },
      },
    },
    '/tenants': {
      get: {
        operationId: 'listTenants',
        summary: "Every tenant's quotas and what it holds (SPEC 34): the tenants of http.apiTokensFile and any other holding something; an admin token's",
        responses: {
          '200': answer('Every tenant.', ref('TenantList')),
          '403': answer("The token's scope is not admin (error Forbidden).", ref('Error')),
          ...errors,
        },
      },
    },
  };
}
