// /v1/tenants (SPEC 34): GET /tenants/me, the caller's tenant, scope,
// quotas and what it holds; GET /tenants, every tenant's (admin only):
// the tenants of the tokens file and any other with recorded usage.
import type { FastifyInstance } from 'fastify';
import type { Tenant } from '../../tenants/types.js';
import { requireAdmin } from '../auth/scope.js';
import type { VmService } from '../deps.js';

export function tenantRoutes(app: FastifyInstance, service: Pick<VmService, 'asTenant'>, configured: readonly Tenant[]): void {
  app.get('/tenants/me', async (request) => service.asTenant(request.tenant).tenantUsage());
  app.get('/tenants', async (request) => {
    requireAdmin(request);
    return { tenants: await service.asTenant(request.tenant).listTenantUsage(configured) };
  });
}
