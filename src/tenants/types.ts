// Tenants (SPEC 34, the project's own): who a caller is, what its token
// may do and how much it may hold. A name belongs to the tenant that
// created it (the registry records it); other tenants never see it. A
// plain token line (one token, nothing else) is the `default` tenant with
// the `admin` scope and no quotas: the one-backend service as before.

/** `read`: GETs of its own names and jobs. `write`: also creates, deletes, checks and renews them. `admin`: all of that on every tenant's names, and every tenant's usage. */
export type TenantScope = 'read' | 'write' | 'admin';

export const TENANT_SCOPES: readonly TenantScope[] = ['read', 'write', 'admin'];

/** What a tenant may hold at once, and create per minute; a quota left out is no limit. */
export interface TenantQuotas {
  /** VMs held: every create accepted and not yet gone (a pool VM it claimed, a VM its lease stopped). */
  vms?: number;
  cores?: number;
  memoryMiB?: number;
  diskGiB?: number;
  /** New generations (a new name, an in-place change, a stopped VM started) per minute, a bucket of this many refilled evenly. */
  createsPerMinute?: number;
}

/** The quotas a VM's size counts against (createsPerMinute is a rate, not a holding). */
export const HELD_QUOTAS = ['vms', 'cores', 'memoryMiB', 'diskGiB'] as const;
export type HeldQuota = (typeof HELD_QUOTAS)[number];
export type QuotaName = HeldQuota | 'createsPerMinute';
export const QUOTA_NAMES: readonly QuotaName[] = [...HELD_QUOTAS, 'createsPerMinute'];

/** A caller as the door sees it: its tenant, scope and quotas. */
export interface Tenant {
  /** 1 to 32 of [a-z0-9-], starting with a letter. */
  name: string;
  scope: TenantScope;
  quotas: TenantQuotas;
  /** Where this tenant's webhooks go (its names' events only), signed with its own key (tenantWebhookKey); absent: none. */
  webhookUrl?: string;
}

/** What one tenant holds now (a VM's sizes summed over its holds). */
export type TenantUsage = Record<HeldQuota, number>;

export const TENANT_NAME_RE = /^[a-z][a-z0-9-]{0,31}$/;

/** The tenant of a plain token line, of the producer library when it names none, and of every name recorded before tenants. */
export const DEFAULT_TENANT_NAME = 'default';

export const DEFAULT_TENANT: Tenant = { name: DEFAULT_TENANT_NAME, scope: 'admin', quotas: {} };

/** The tenant a record, a view or a job's data belongs to: its `tenant`, or the default one (written before tenants, the default tenant's, or none at all). */
export function ownerOf(owned: { tenant?: unknown } | undefined): string {
  return typeof owned?.tenant === 'string' ? owned.tenant : DEFAULT_TENANT_NAME;
}

/** Whether `tenant` may see and act on a name `owner` holds: its own, or any with the admin scope. */
export function mayActOn(tenant: Pick<Tenant, 'name' | 'scope'>, owner: string): boolean {
  return tenant.scope === 'admin' || tenant.name === owner;
}

/** Whether the scope may enqueue (create, delete, check, renew). */
export function mayWrite(tenant: Pick<Tenant, 'scope'>): boolean {
  return tenant.scope !== 'read';
}

/** A tenant's quotas and what it holds now (GET /v1/tenants/me, SPEC 34). */
export interface TenantUsageView {
  tenant: string;
  /** The scope of the token that asked (its own view); absent in an admin's list of all tenants. */
  scope?: TenantScope;
  quotas: TenantQuotas;
  usage: TenantUsage;
}

/** Nothing held. */
export const NO_USAGE: TenantUsage = { vms: 0, cores: 0, memoryMiB: 0, diskGiB: 0 };

/**
 * A job's `tenant` field from its name's owner (SPEC 34): none for the
 * default tenant's (absent means it), so jobs of a service without tenants
 * are as they were, and a worker from before tenants still takes them.
 */
export function ownerField(record: { tenant?: string } | undefined): { tenant?: string } {
  return record?.tenant === undefined || record.tenant === DEFAULT_TENANT_NAME ? {} : { tenant: record.tenant };
}
