// The tenant a request speaks for (SPEC 34): `request.tenant`, set by the
// bearer check from the token's line; the default tenant (admin, no
// quotas) wherever no token is checked (http.authDisabled, open routes).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DEFAULT_TENANT, type Tenant } from '../../tenants/types.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The tenant of the request's bearer token; the default tenant where no token is checked. */
    tenant: Tenant;
  }
}

// fastify refuses an object as a request decorator's value (it would be shared): a getter reads each request's own.
const tenants = new WeakMap<FastifyRequest, Tenant>();

/** Gives every request of `app` its `tenant`, the default one until the bearer check sets another. */
export function decorateRequestTenant(app: FastifyInstance): void {
  app.decorateRequest('tenant', {
    getter(this: FastifyRequest): Tenant {
      return tenants.get(this) ?? DEFAULT_TENANT;
    },
    setter(this: FastifyRequest, tenant: Tenant): void {
      tenants.set(this, tenant);
    },
  });
}
