// The OpenAPI 3.1 document of /v1, served at /v1/openapi.json. Request
// bodies come from the job schemas (jobJsonSchema), the same rules the
// validator applies, so the document cannot drift from what is enforced.
import { JOB_TABLE, NAME_JOBS, jobJsonSchema, limitsFromConfig } from '../job-table/schema.js';
import { IN_PLACE_FIELDS } from '../job-table/create.schema.js';
import type { Config } from '../config/index.js';
import { DEFAULT_PAGE_LIMIT, LISTED_STATES, MAX_PAGE_LIMIT } from '../queue/vm-listing.js';
import { imageSchemas } from './openapi-images.js';
import { clusterListParams, clusterPaths, clusterSchemas, clusterViewProperties } from './openapi-clusters.js';
import { poolSchemas, originAnswerProperties } from './openapi-pools.js';
import { CREATE_CONFLICT_TEXT, addressViewProperties } from './openapi-addresses.js';
import { expiringBeforeParam, leasePath, leaseSchemas, leaseViewProperties } from './openapi-leases.js';
import { jobSchemas } from './openapi-jobs.js';
import { FORBIDDEN_WRITE, NAME_TAKEN_TEXT, NOT_OWN_NAME, tenantCreateAnswers, tenantErrorProperties, tenantPaths, tenantSchemas } from './openapi-tenants.js';
import { EVENT_ID_PATTERN } from './job-event-cursor.js';
import { DEFAULT_MAX_EVENT_STREAMS } from './job-event-options.js';
import { MAX_WAIT_SECONDS } from './routes/jobs.js';

type Schema = Record<string, unknown>;

/** The operationId of POST /vms/{name}/<job>, from the job table's name: check is checkVm, a `cold-boot` job coldBootVm. */
function nameJobOperationId(job: string): string {
  return `${job.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())}Vm`;
}

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Schema): Schema => ({ content: { 'application/json': { schema } } });
const answer = (description: string, schema: Schema): Schema => ({ description, ...json(schema) });

const ERROR_ANSWERS: Record<string, Schema> = {
  '401': answer('No bearer token, or one not in http.apiTokensFile.', ref('Error')),
};

/** A call that changes something: also refused to a read token (SPEC 34). */
const WRITE_ERROR_ANSWERS: Record<string, Schema> = { ...ERROR_ANSWERS, '403': FORBIDDEN_WRITE };

const nameParam = {
  name: 'name',
  in: 'path',
  required: true,
  description: 'The VM name: a DNS label, 1 to 63 of a-z 0-9 -, not starting or ending with -.',
  schema: { type: 'string' },
};

/** GET /vms's query (SPEC 27); each bad value is a 400 naming it. */
const listParams = [
  { name: 'limit', in: 'query', required: false, description: `Names per page (1 to ${MAX_PAGE_LIMIT}).`, schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT } },
  { name: 'cursor', in: 'query', required: false, description: "The previous page's nextCursor, as given: the page goes on after that page's last name.", schema: { type: 'string' } },
  { name: 'state', in: 'query', required: false, description: 'Only names desired so.', schema: { type: 'string', enum: [...LISTED_STATES] } },
  { name: 'node', in: 'query', required: false, description: 'Only names whose VM was last seen on this node (lastKnown.node).', schema: { type: 'string' } },
  expiringBeforeParam,
  { name: 'tenant', in: 'query', required: false, description: "Only this tenant's names (SPEC 34). An admin token may name any tenant; another token only its own (a 400 otherwise), and sees only its own names either way.", schema: { type: 'string' } },
  ...clusterListParams,
];

const vmPage: Schema = {
  type: 'object',
  required: ['vms', 'nextCursor'],
  properties: {
    vms: { type: 'array', items: ref('Vm'), description: 'In name order.' },
    nextCursor: { type: ['string', 'null'], description: 'Pass it as cursor for the next page; null on the last page. Names added or removed meanwhile never make a page repeat or skip a name that stayed.' },
  },
};

const JOB_EVENTS_DESCRIPTION = [
  'Events, each with an `id:` and one JSON `data:` line:',
  '`state` {state, attemptsMade} when the state (waiting, delayed, active, ...) or attemptsMade changes (a retry);',
  '`step` {index, step} for a create step, before the `log` of its `step: <step>` line;',
  '`log` {index, line} for each log line, as GET /v1/jobs/{id} shows them;',
  '`end` {state: completed, result} or {state: failed, failedReason}, with attemptsMade and finishedAt, after which the server closes.',
  'Also `unavailable` {message} (no id) once while the job cannot be read, the stream staying open; `gone` {error, message} when the job is removed, then the close;',
  '`reconnect` {message} (no id) when the stream reached http.eventStreamMaxSeconds, then the close: reconnect with Last-Event-ID to go on;',
  'and a `: heartbeat` comment every 15 s.',
].join(' ');

const componentSchemas: Record<string, Schema> = {
  ...imageSchemas,
  ...clusterSchemas,
  ...poolSchemas,
  ...tenantSchemas,
  Error: {
    type: 'object',
    required: ['error', 'message'],
    properties: {
      error: { type: 'string', description: 'ValidationError, Conflict, PoolExhausted, NotFound, Unauthorized, Forbidden, QuotaExceeded, RateLimited, NameTaken, ...' },
      message: { type: 'string' },
      ...tenantErrorProperties,
      pool: { type: 'string', description: 'With PoolExhausted: the address pool with no free address (SPEC 29).' },
      network: { type: 'string', description: 'With PoolExhausted: its bridge, VLAN tag and cidr, in words.' },
      fields: {
        type: 'array',
        description: 'With ValidationError: every failing field and why. With Conflict on a create: every field that differs from the present spec and cannot change in place.',
        items: { type: 'object', required: ['field', 'message'], properties: { field: { type: 'string' }, message: { type: 'string' } } },
      },
    },
  },
  Enqueued: {
    type: 'object',
    required: ['jobId', 'name', 'existing'],
    properties: {
      jobId: { type: 'string', description: 'Follow it at GET /v1/jobs/{jobId} (also in the Location header).' },
      name: { type: 'string' },
      generation: { type: 'integer', description: 'The desired-state generation this job carries (SPEC 2).' },
      uid: { type: 'string', description: 'A create\'s uid: the one sent, the present name\'s when none was sent, or a new one.' },
      existing: { type: 'boolean', description: 'true when an identical request was already there (idempotent create; the answer is 200, not 202).' },
      warning: { type: 'string', description: 'On a 202 create when the last health check found no node fit to take a VM: why, in words; the create waits and retries (jobs.acceptWhenUnhealthy).' },
      changes: {
        type: 'array',
        description: 'A create of a present name that its VM takes in place (SPEC 2): the fields it changes. Absent otherwise.',
        items: { type: 'string', enum: Object.keys(IN_PLACE_FIELDS) },
      },
      ...leaseViewProperties,
      ...addressViewProperties,
      ...originAnswerProperties,
      cluster: { type: 'string', description: "A create's with several clusters (SPEC 32): the cluster its VM lives in: the one it named, the name's own, or placement's choice. Absent in the one-cluster form." },
    },
  },
  TextSummary: {
    type: 'object',
    description: 'What answers show of userData and networkConfig: never the text (SPEC 24).',
    required: ['bytes', 'hmacSha256'],
    properties: {
      bytes: { type: 'integer', description: 'Its size in bytes of UTF-8.' },
      hmacSha256: { type: 'string', description: "Hex HMAC-SHA256 of those bytes under the deployment's fingerprint key (http.fingerprintKeyFile): equal texts give equal values within one deployment; a guess cannot be tested without the key." },
    },
  },
  Vm: {
    type: 'object',
    required: ['name', 'state', 'generation', 'updatedAt'],
    properties: {
      name: { type: 'string' },
      state: { type: 'string', enum: ['present', 'absent'], description: 'The desired state.' },
      uid: { type: 'string' },
      tenant: { type: 'string', description: 'The tenant that owns the name (SPEC 34): the one whose create first recorded it; `default` for a name from before tenants.' },
      generation: { type: 'integer' },
      spec: { ...ref('VmSpec'), description: 'The create\'s fields, the sizes filled in; userData and networkConfig as a TextSummary, sshKeys as sent (public keys).' },
      updatedAt: { type: 'string', format: 'date-time' },
      failed: {
        type: 'object',
        description: 'The present create failed Permanent: the reconciler does not re-create it until a new create arrives (SPEC 2).',
        properties: { reason: { type: 'string' }, jobId: { type: 'string' }, generation: { type: 'integer' }, at: { type: 'string', format: 'date-time' } },
      },
      lastKnown: {
        type: 'object',
        description: 'What the last job or check found.',
        properties: {
          state: { type: 'string', description: 'The VM as last seen (running, stopped, ...); Unknown while its cluster is away (clusterAway, SPEC 32).' },
          address: { type: 'string' },
          vmid: { type: 'integer' },
          node: { type: 'string' },
          at: { type: 'string', format: 'date-time' },
        },
      },
      jobId: { type: 'string' },
      job: ref('Job'),
      ...leaseViewProperties,
      ...addressViewProperties,
      ...clusterViewProperties,
    },
  },
};

/** http.publicUrl followed by /v1 (one slash between), or the relative /v1 when it is unset. */
export function serverUrl(publicUrl: string): string {
  return publicUrl === '' ? '/v1' : `${publicUrl.replace(/\/+$/, '')}/v1`;
}

export function buildOpenApiDocument(config: Config): Schema {
  const limits = limitsFromConfig(config);
  return {
    openapi: '3.1.0',
    info: {
      title: 'pve-provisioner',
      version: '1',
      description: 'Creates, checks and deletes Proxmox VE VMs through jobs. Every call but GET /openapi.json (this document) needs "Authorization: Bearer <token>". An operation takes only the query parameters it lists, as if additionalProperties were false: any other is a 400 naming it.',
    },
    servers: [{ url: serverUrl(config.http.publicUrl) }],
    security: [{ bearer: [] }],
    paths: { ...vmPaths(jobJsonSchema('create', limits)), ...imagePaths(), ...clusterPaths(ERROR_ANSWERS), ...poolPaths(), ...jobPaths(), ...tenantPaths(ERROR_ANSWERS) },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A token from http.apiTokensFile.' } },
      schemas: { ...componentSchemas, ...jobSchemas(limits), ...leaseSchemas(limits) },
    },
  };
}

/** The answers of a call that enqueues a job. */
function enqueued(what: string): Schema {
  return {
    '200': answer(`${what} was already there (existing: true): the same job.`, ref('Enqueued')),
    '202': answer(`${what} enqueued.`, ref('Enqueued')),
    '400': answer('The request is invalid; fields lists every failing field.', ref('Error')),
    ...WRITE_ERROR_ANSWERS,
  };
}

/** The answers of a call that enqueues a job on a present name. */
function enqueuedOnName(what: string): Schema {
  return { ...enqueued(what), '404': NOT_OWN_NAME };
}

/** /vms, /vms/{name} and a POST /vms/{name}/<job> per job of the job table that takes a name; `createBody` is the create's request body. */
function vmPaths(createBody: Schema): Schema {
  return {
    '/vms': {
      post: {
        operationId: 'createVm',
        summary: 'Enqueue a create (SPEC 1, 2); with no uid, a present name\'s is taken; other cores, memory or a larger disk change a present VM in place',
        requestBody: { required: true, ...json(createBody) },
        responses: {
          ...enqueued('The create'),
          ...tenantCreateAnswers,
          '409': answer(`${CREATE_CONFLICT_TEXT} ${NAME_TAKEN_TEXT}`, ref('Error')),
          '503': answer('No node can take a VM and jobs.acceptWhenUnhealthy is false (error NoHealthyNode, with Retry-After), or Redis is unreachable.', ref('Error')),
        },
      },
      get: {
        operationId: 'listVms',
        summary: 'The names the service manages, a page at a time in name order, with their desired and last known state',
        parameters: listParams,
        responses: {
          '200': answer('A page of names.', vmPage),
          '400': answer('limit, cursor, state, node, expiringBefore or tenant is invalid; fields names it.', ref('Error')),
          ...ERROR_ANSWERS,
        },
      },
    },
    '/vms/{name}': {
      parameters: [nameParam],
      get: {
        operationId: 'getVm',
        summary: 'The desired state, last known state and latest job of one name',
        responses: { '200': answer('The name.', ref('Vm')), '404': answer('The name is not known.', ref('Error')), ...ERROR_ANSWERS },
      },
      delete: {
        operationId: 'deleteVm',
        summary: 'Enqueue a delete',
        parameters: [{ name: 'uid', in: 'query', required: false, description: 'Only the VM whose mark carries this uid is touched.', schema: { type: 'string' } }],
        responses: enqueuedOnName('The delete'),
      },
    },
    '/vms/{name}/lease': leasePath(nameParam, WRITE_ERROR_ANSWERS),
    ...Object.fromEntries(
      NAME_JOBS.map((job) => [`/vms/{name}/${job}`, { parameters: [nameParam], post: { operationId: nameJobOperationId(job), summary: `Enqueue ${JOB_TABLE[job].summary}`, responses: enqueuedOnName(`The ${job}`) } }]),
    ),
  };
}

function imagePaths(): Schema {
  return {
    '/images': {
      get: {
        operationId: 'listImages',
        summary: "The images a create's image field may name (SPEC 27), each with its template per node and the last health job's finding there",
        responses: { '200': answer('Every configured image.', ref('ImageList')), ...ERROR_ANSWERS },
      },
    },
  };
}

function poolPaths(): Schema {
  return {
    '/pools': {
      get: {
        operationId: 'listPools',
        summary: "The warm pools (SPEC 30): each one's shape, minIdle, maxIdle and maxAgeMinutes, and its VMs idle, claimed and creating",
        responses: { '200': answer('Every configured pool, in config order.', ref('PoolList')), ...ERROR_ANSWERS },
      },
    },
  };
}

function jobPaths(): Schema {
  return { '/jobs/{id}': jobPath(), '/jobs/{id}/events': jobEventsPath() };
}

/** GET /jobs/{id}, which may wait for the job to finish. */
function jobPath(): Schema {
  return {
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    get: {
      operationId: 'getJob',
      summary: 'A job: state, progress, log lines, result or failure reason',
      parameters: [
        {
          name: 'waitSeconds',
          in: 'query',
          required: false,
          description: `Wait up to this long for the job to finish before answering (0 to ${MAX_WAIT_SECONDS}).`,
          schema: { type: 'integer', minimum: 0, maximum: MAX_WAIT_SECONDS, default: 0 },
        },
      ],
      responses: {
        '200': answer('The job (finished, or as it stands when the wait ran out).', ref('Job')),
        '400': answer('waitSeconds is out of range.', ref('Error')),
        '404': answer("No such job, or another tenant's (SPEC 34).", ref('Error')),
        '503': answer('With waitSeconds: this web process holds its most waits (http.maxJobWaiters); Retry-After says when to try again.', ref('Error')),
        ...ERROR_ANSWERS,
      },
    },
  };
}

/** GET /jobs/{id}/events, the job's server-sent events. */
function jobEventsPath(): Schema {
  return {
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    get: {
      operationId: 'streamJobEvents',
      summary: "A job's states, steps, log lines and end as server-sent events; the server closes the stream when the job ends",
      parameters: [
        {
          name: 'Last-Event-ID',
          in: 'header',
          required: false,
          description: 'The id of the last event received (an EventSource sends it when it reconnects): the stream goes on right after that event.',
          schema: { type: 'string', pattern: EVENT_ID_PATTERN.source },
        },
        {
          name: 'lastEventId',
          in: 'query',
          required: false,
          description: 'Last-Event-ID as a query parameter, as EventSource polyfills that send headers resume; the header wins when both are given.',
          schema: { type: 'string', pattern: EVENT_ID_PATTERN.source },
        },
      ],
      responses: {
        '200': {
          description: JOB_EVENTS_DESCRIPTION,
          content: { 'text/event-stream': { schema: { type: 'string' } } },
        },
        '204': { description: 'Last-Event-ID is the end event: nothing follows (an EventSource stops reconnecting).' },
        '400': answer('Last-Event-ID (or lastEventId) is not an id this stream sends.', ref('Error')),
        '404': answer("No such job, or another tenant's (SPEC 34).", ref('Error')),
        '503': answer(`This web process holds its most event streams (${DEFAULT_MAX_EVENT_STREAMS}); Retry-After says when to try again.`, ref('Error')),
        ...ERROR_ANSWERS,
      },
    },
  };
}
