// /v1/vms (SPEC 6). Bodies are not checked by fastify: the shared job
// validator behind the producer decides, so the API and the library
// refuse the same inputs with the same field errors (SPEC 1). A request
// that was already there answers 200 (`existing: true`), a new one 202
// (SPEC 2). PUT /vms/:name/lease renews a name's lease (SPEC 31). Each
// call is the request's tenant's (SPEC 34): another tenant's name is not found.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { NAME_JOBS } from '../../job-table/schema.js';
import { LeaseExpiredError, LeaseShortenError, NameNotFoundError, QuotaExceededError, RateLimitedError, SpecConflictError } from '../../client.js';
import type { EnqueueResult, VmListQuery } from '../../client.js';
import { LISTING_KEYS, parseVmListQuery } from '../../queue/vm-listing.js';
import type { CreateHealthGate } from '../create-health.js';
import type { VmService } from '../deps.js';
import { validationBody } from '../error-handler.js';
import { takesQuery } from '../query-keys.js';

interface NameParams {
  name: string;
}

const noHealthGate: CreateHealthGate = () => Promise.resolve({ accept: true });

function accepted(reply: FastifyReply, result: EnqueueResult & { warning?: string }): FastifyReply {
  return reply
    .code(result.existing ? 200 : 202)
    .header('Location', `/v1/jobs/${encodeURIComponent(result.jobId)}`)
    .send(result);
}

/** SPEC 2: every field whose value differs from the present spec, as a validation error lists its fields. */
function specConflict(reply: FastifyReply, err: SpecConflictError): FastifyReply {
  return reply.code(409).send({
    error: 'Conflict',
    message: err.message,
    name: err.vmName,
    fields: err.fields.map((field) => ({ field, message: 'differs from the present spec' })),
  });
}

function isObject(body: unknown): body is Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body);
}

/** SPEC 30: a create of a warm pool's shape that found it empty, counted once (not on a repeat). */
type PoolMissCounter = (pool: string) => void;

/** SPEC 34: a create refused by its tenant's quota (the quota's name) or rate (`rate`). */
type TenantRefusalCounter = (tenant: string, reason: string) => void;

/** POST /vms: refused while no node of the create's cluster is healthy (SPEC 19, 32), else the create's accept; a warm pool's miss counted (SPEC 30). */
function createRoute(app: FastifyInstance, service: VmService, createHealth: CreateHealthGate, poolMissed: PoolMissCounter, tenantRefused: TenantRefusalCounter): void {
  app.post('/vms', async (request, reply) => {
    // SPEC 32: the cluster the create names is the one judged; a bad value is the field table's to refuse.
    const text = (field: string): string | undefined => (isObject(request.body) && typeof request.body[field] === 'string' ? request.body[field] : undefined);
    const name = text('name');
    // Else the name's own cluster, else those serving its image, where placement sends it; a bad name is the field table's to refuse.
    const clusterOfName = name === undefined ? undefined : () => service.asTenant(request.tenant).getVm(name).then((view) => view?.cluster, () => undefined);
    const ask = { cluster: text('cluster'), image: text('image'), node: text('node') };
    const health = await createHealth(Object.fromEntries(Object.entries(ask).filter(([, value]) => value !== undefined)), clusterOfName);
    if (!health.accept) {
      return reply.code(503).header('Retry-After', String(health.retryAfterSeconds)).send({ error: 'NoHealthyNode', message: health.message });
    }
    try {
      const result = await service.asTenant(request.tenant).createVm(request.body);
      if (result.origin === 'cold' && result.warmPool !== undefined && !result.existing) poolMissed(result.warmPool);
      return accepted(reply, health.warning === undefined || result.existing ? result : { ...result, warning: health.warning });
    } catch (err) {
      if (err instanceof SpecConflictError) return specConflict(reply, err);
      if (err instanceof QuotaExceededError) tenantRefused(err.tenant, err.quota);
      if (err instanceof RateLimitedError) tenantRefused(err.tenant, 'rate');
      throw err;
    }
  });
}

export function vmRoutes(
  app: FastifyInstance,
  service: VmService,
  createHealth: CreateHealthGate = noHealthGate,
  poolMissed: PoolMissCounter = () => undefined,
  tenantRefused: TenantRefusalCounter = () => undefined,
): void {
  createRoute(app, service, createHealth, poolMissed, tenantRefused);

  // SPEC 27: a page of names; the query's text becomes the library's query, which it checks.
  app.get<{ Querystring: Record<string, unknown> }>('/vms', takesQuery(...LISTING_KEYS), async (request, reply) => {
    const { limit, cursor, state, node, expiringBefore, tenant, cluster } = request.query;
    const query = { limit: typeof limit === 'string' && /^\d+$/.test(limit) ? Number(limit) : limit, cursor, state, node, expiringBefore, tenant, cluster };
    const checked = parseVmListQuery(query);
    if (!checked.ok) return reply.code(400).send(validationBody(checked.errors));
    // SPEC 34: a tenant's own names; `tenant` filters by owner (admin), another's for a non-admin is a 400 naming it.
    return service.asTenant(request.tenant).listVms(query as VmListQuery);
  });

  app.get<{ Params: NameParams }>('/vms/:name', async (request, reply) => {
    const calls = service.asTenant(request.tenant);
    const desired = await calls.getVm(request.params.name);
    if (desired === undefined) {
      return reply.code(404).send({ error: 'NotFound', message: `no VM named ${request.params.name} is known` });
    }
    const job = desired.jobId === undefined ? undefined : await calls.getJob(desired.jobId);
    return { ...desired, job };
  });

  app.delete<{ Params: NameParams; Querystring: Record<string, unknown> }>('/vms/:name', takesQuery('uid'), async (request, reply) => {
    const input: Record<string, unknown> = { name: request.params.name };
    if (request.query.uid !== undefined) input.uid = request.query.uid;
    return accepted(reply, await service.asTenant(request.tenant).deleteVm(input));
  });

  app.put<{ Params: NameParams }>('/vms/:name/lease', async (request, reply) => {
    try {
      // The body holds shorten too; the library checks it with the rest.
      return await service.asTenant(request.tenant).renewLease(request.params.name, request.body);
    } catch (err) {
      if (err instanceof NameNotFoundError) return reply.code(404).send({ error: 'NotFound', message: err.message });
      if (err instanceof LeaseShortenError || err instanceof LeaseExpiredError) return reply.code(409).send({ error: 'Conflict', message: err.message, name: err.vmName, expiresAt: err.expiresAt });
      throw err;
    }
  });

  // POST /vms/:name/check, and likewise every job of one name in the job table (src/job-table/schema.ts).
  for (const job of NAME_JOBS) {
    app.post<{ Params: NameParams }>(`/vms/:name/${job}`, async (request, reply) => {
      // The name is the path's; a body's fields are the job's other fields, checked by its schema.
      // No body is no other fields; a body that is no object (`[1,2]`, `"x"`, `null`) is refused, not read as empty.
      if (request.body !== undefined && !isObject(request.body)) return reply.code(400).send(validationBody([{ field: 'body', message: 'must be a JSON object' }]));
      return accepted(reply, await service.asTenant(request.tenant).enqueueJob(job, { ...request.body, name: request.params.name }));
    });
  }
}
