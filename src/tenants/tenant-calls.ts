// What a tenant's client (SPEC 34) adds to the producer library's calls:
// the scope checked before anything is touched, a name another tenant owns
// not found (never "forbidden": a non-admin learns nothing of another's
// names), jobs of another's names not found, listings of its own names
// alone, and the usage views. The HTTP API makes one such client per
// request (asTenant) with the token's tenant.
import type { DesiredStateRegistry } from '../queue/registry.js';
import type { RedisClient } from '../redis-script.js';
import { NameNotFoundError, ScopeError, ValidationError } from '../queue/producer-errors.js';
import { ProducerConfigError } from '../config/producer.js';
import type { JobView } from '../queue/job-view.js';
import type { WaitOptions } from '../queue/wait-for-job.js';
import { JOB_NAMES, JOB_TABLE } from '../job-table/schema.js';
import type { VmListQuery } from '../queue/vm-listing.js';
import { readAllUsage, readUsage } from './usage-read.js';
import { DEFAULT_TENANT, DEFAULT_TENANT_NAME, NO_USAGE, QUOTA_NAMES, TENANT_NAME_RE, TENANT_SCOPES, mayActOn, mayWrite, ownerOf } from './types.js';
import type { Tenant, TenantQuotas, TenantScope, TenantUsageView } from './types.js';

/** The client's read calls (src/client.ts), by shape: a name's view says its owner; pages and pools pass as they are. */
export interface ReadCalls<V extends { tenant?: string }, P, L> {
  getJob(id: string): Promise<JobView | undefined>;
  waitForJob(id: string, options?: WaitOptions): Promise<JobView>;
  getVm(name: string): Promise<V | undefined>;
  listVms(query?: VmListQuery): Promise<P>;
  listPools(): Promise<L>;
}

/** The client's own tenant from its `tenant` option: left out, the default tenant (admin, no quotas); named, `write` unless a scope is given. */
export function clientTenant(option: { name: string; scope?: TenantScope; quotas?: TenantQuotas } | undefined): Tenant {
  if (option === undefined) return DEFAULT_TENANT;
  if (typeof option.name !== 'string' || !TENANT_NAME_RE.test(option.name)) {
    throw new ProducerConfigError('tenant.name must be 1 to 32 of a-z, 0-9 and "-", starting with a letter');
  }
  if (option.scope !== undefined && !TENANT_SCOPES.includes(option.scope)) {
    throw new ProducerConfigError(`tenant.scope must be one of ${TENANT_SCOPES.join(', ')}`);
  }
  const quotas = option.quotas ?? {};
  for (const [quota, limit] of Object.entries(quotas) as [string, unknown][]) {
    if (!(QUOTA_NAMES as readonly string[]).includes(quota)) throw new ProducerConfigError(`tenant.quotas.${quota} is not a quota (${QUOTA_NAMES.join(', ')})`);
    if (limit !== undefined && (!Number.isSafeInteger(limit) || (limit as number) < 1)) throw new ProducerConfigError(`tenant.quotas.${quota} is ${JSON.stringify(limit)}; it must be a positive integer`);
  }
  // The default tenant is the operator's (SPEC 34), as in the tokens file: admin, no quotas.
  if (option.name === DEFAULT_TENANT_NAME) {
    if ((option.scope ?? 'admin') !== 'admin' || Object.keys(quotas).length > 0) throw new ProducerConfigError(`tenant ${DEFAULT_TENANT_NAME} is the operator's: admin, no quotas; name another tenant`);
    return DEFAULT_TENANT;
  }
  return { name: option.name, scope: option.scope ?? 'write', quotas };
}

/** A `read` tenant may not create, delete, check or renew: a ScopeError before the input is even read. */
export function refuseReadScope(tenant: Tenant, action: string): void {
  if (!mayWrite(tenant)) throw new ScopeError(tenant.name, tenant.scope, action);
}

/**
 * The tenant that owns `name` now, for the job data of a check (SPEC 34):
 * the record's, the default tenant's for a record without one or no record
 * (an admin's check of a name never created). A non-admin's name must be
 * recorded and its own, else NameNotFoundError.
 */
export async function ownerForJob(registry: Pick<DesiredStateRegistry, 'get'>, tenant: Tenant, name: string): Promise<string> {
  const record = await registry.get(name);
  if (tenant.scope === 'admin') return ownerOf(record);
  if (record === undefined || !mayActOn(tenant, ownerOf(record))) throw new NameNotFoundError(name);
  return ownerOf(record);
}

/** A renewal of a name another tenant owns is a NameNotFoundError, as of a name not recorded (which the renewal's own script says). */
export async function refuseOthersName(registry: Pick<DesiredStateRegistry, 'get'>, tenant: Tenant, name: string): Promise<void> {
  if (tenant.scope === 'admin') return;
  const record = await registry.get(name);
  if (record !== undefined && !mayActOn(tenant, ownerOf(record))) throw new NameNotFoundError(name);
}

/** The jobs of a name (SPEC 34): the service's own (a sweep, a health check, a refill, a lease's timers) are the admin's alone, whatever their data says. */
const NAME_OWNED_JOBS: ReadonlySet<string> = new Set(JOB_NAMES.filter((job) => JOB_TABLE[job].queue === 'vm'));

/** The job's owner, or undefined for a job no non-admin tenant may see. */
function jobTenant(view: JobView): string | undefined {
  return NAME_OWNED_JOBS.has(view.job) ? ownerOf(view.data as { tenant?: unknown }) : undefined;
}

/** A non-admin's listing is of its own names: naming another tenant is a ValidationError, naming none lists its own. */
function ownListing(tenant: Tenant, query: VmListQuery | undefined): VmListQuery | undefined {
  if (query === undefined) return { tenant: tenant.name };
  // Not a query at all: the listing's own check says so.
  if (typeof query !== 'object' || query === null || Array.isArray(query)) return query;
  const asked: unknown = query.tenant;
  if (asked !== undefined && asked !== tenant.name) throw new ValidationError([{ field: 'tenant', message: "only an admin token may list another tenant's names" }]);
  return { ...query, tenant: tenant.name };
}

/** The read calls as `tenant` sees them: another's names and jobs are not found (admin: everything, the calls as they are). */
export function tenantReads<V extends { tenant?: string }, P, L>(tenant: Tenant, base: ReadCalls<V, P, L>): ReadCalls<V, P, L> {
  if (tenant.scope === 'admin') return base;
  const getJob = async (id: string): Promise<JobView | undefined> => {
    const view = await base.getJob(id);
    const owner = view === undefined ? undefined : jobTenant(view);
    return owner !== undefined && mayActOn(tenant, owner) ? view : undefined;
  };
  return {
    getJob,
    async waitForJob(id, options) {
      // A job's tenant never changes: once its first read is this tenant's, every later one is.
      if ((await getJob(id)) === undefined) throw new Error(`job ${id} does not exist`);
      return base.waitForJob(id, options);
    },
    async getVm(name) {
      const view = await base.getVm(name);
      return view !== undefined && mayActOn(tenant, ownerOf(view)) ? view : undefined;
    },
    listVms: (query) => base.listVms(ownListing(tenant, query)),
    listPools: () => base.listPools(),
  };
}

/** GET /v1/tenants/me: the tenant's scope, quotas and what it holds now. */
export async function tenantUsage(connected: () => Promise<RedisClient>, prefix: string, tenant: Tenant): Promise<TenantUsageView> {
  return { tenant: tenant.name, scope: tenant.scope, quotas: tenant.quotas, usage: await readUsage(await connected(), prefix, tenant.name) };
}

/** GET /v1/tenants (admin): every tenant in `known` and every one with usage recorded, by name; a known tenant's quotas as configured. */
export async function listTenantUsage(connected: () => Promise<RedisClient>, prefix: string, tenant: Tenant, known: readonly Tenant[] = []): Promise<TenantUsageView[]> {
  if (tenant.scope !== 'admin') throw new ScopeError(tenant.name, tenant.scope, "list every tenant's usage");
  const usage = await readAllUsage(await connected(), prefix);
  const quotas = new Map<string, TenantQuotas>();
  for (const each of known) if (!quotas.has(each.name)) quotas.set(each.name, each.quotas);
  const names = [...new Set([...quotas.keys(), ...usage.keys()])].sort();
  return names.map((name) => ({ tenant: name, quotas: quotas.get(name) ?? {}, usage: usage.get(name) ?? { ...NO_USAGE } }));
}
