// A caller's tenant as the accept's script takes it (SPEC 34): its name,
// whether it is admin, its quotas and the create's size.
import type { TenantAdmission } from '../queue/registry.js';
import type { Tenant } from './types.js';

export function admissionOf(tenant: Tenant, size: TenantAdmission['size']): TenantAdmission {
  return { name: tenant.name, admin: tenant.scope === 'admin', quotas: tenant.quotas, size: { cores: size.cores, memoryMiB: size.memoryMiB, diskGiB: size.diskGiB } };
}
