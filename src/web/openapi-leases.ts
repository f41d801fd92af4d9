// The OpenAPI document's part on leases (SPEC 31): the lease fields every
// view of a VM carries, the listing's expiringBefore, and PUT
// /vms/{name}/lease with its body and answer.
import type { JobLimits } from '../job-table/schema.js';

import { answer, json, ref, type Schema } from './openapi-parts.js';

const onExpiry: Schema = { type: 'string', enum: ['delete', 'stop'], description: 'What runs at expiresAt: delete (the VM and the name go) or stop (the VM stops; the name stays recorded).' };

/** The lease as a VM's view (GET /vms/{name}, the listing) and a create's answer show it; absent: no lease. */
export const leaseViewProperties: Record<string, Schema> = {
  expiresAt: { type: 'string', format: 'date-time', description: 'When the name\'s lease ends its VM unless renewed (PUT /v1/vms/{name}/lease); absent: no lease.' },
  onExpiry,
};

/** GET /vms's expiringBefore. */
export const expiringBeforeParam: Schema = {
  name: 'expiringBefore',
  in: 'query',
  required: false,
  description: 'Only names whose lease ends before this time (RFC 3339 with an offset, e.g. 2030-01-02T03:04:05Z).',
  schema: { type: 'string', format: 'date-time' },
};

export function leaseSchemas(limits: JobLimits): Record<string, Schema> {
  const max = limits.leases.maxSeconds;
  return {
    Lease: {
      type: 'object',
      required: ['name', 'expiresAt', 'onExpiry', 'version'],
      properties: {
        name: { type: 'string' },
        expiresAt: leaseViewProperties.expiresAt,
        onExpiry,
        version: { type: 'integer', description: 'One more each time the lease moves.' },
      },
    },
    LeaseRenewal: {
      type: 'object',
      additionalProperties: false,
      description: 'Exactly one of ttlSeconds and expiresAt.',
      properties: {
        ttlSeconds: { type: 'integer', minimum: 1, maximum: max, description: `The lease ends this many seconds from now (at most leases.maxSeconds, ${max}).` },
        expiresAt: { type: 'string', format: 'date-time', description: `The lease ends at this time (RFC 3339 with an offset), later than now and at most leases.maxSeconds (${max} s) from now.` },
        shorten: { type: 'boolean', default: false, description: 'Allow the new expiry to be earlier than the present one; without it such a renewal is a 409 and nothing changes.' },
      },
    },
  };
}

/** PUT /vms/{name}/lease; `nameParam` and `errors` are the document's own. */
export function leasePath(nameParam: Schema, errors: Record<string, Schema>): Schema {
  return {
    parameters: [nameParam],
    put: {
      operationId: 'renewLease',
      summary: 'Renew the name\'s lease (SPEC 31): move its expiry to ttlSeconds from now or to expiresAt; a name without a lease gets one',
      requestBody: { required: true, ...json(ref('LeaseRenewal')) },
      responses: {
        '200': answer('The lease as it is now.', ref('Lease')),
        '400': answer('The body is invalid (neither or both of ttlSeconds and expiresAt, past leases.maxSeconds from now, ...); fields names the field.', ref('Error')),
        '404': answer('No present VM has this name.', ref('Error')),
        '409': answer('The new expiry is earlier than the present one and shorten is not true, or the lease expired and stopped the VM (a create of its spec starts it again); expiresAt is the present one.', ref('Error')),
        ...errors,
      },
    },
  };
}
