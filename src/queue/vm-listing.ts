// The query of a listing of names (SPEC 27: GET /v1/vms pages and
// filters), for the producer library and the HTTP API alike: limit,
// cursor, state, node, expiringBefore (SPEC 31), tenant (SPEC 34), cluster (SPEC 32), checked here so both refuse the same values naming
// the same field. Pages run in name order and the cursor is the last name
// a page gave (base64url), so a page goes on after that name whatever was
// added or removed meanwhile: no name twice, none skipped that stayed.
import { DNS_LABEL } from '../job-table/fields.js';
import type { FieldError } from '../job-table/fields.js';
import type { DesiredRecord } from '../desired-state.js';
import { parseRfc3339 } from './rfc3339.js';
import { TENANT_NAME_RE } from '../tenants/types.js';
import { CLUSTER_NAME_RE } from '../config/name-patterns.js';
import { DEFAULT_CLUSTER } from '../config/clusters.js';

export const DEFAULT_PAGE_LIMIT = 100;
export const MAX_PAGE_LIMIT = 1000;
export const LISTED_STATES = ['present', 'absent'] as const satisfies readonly DesiredRecord['state'][];

export interface VmListQuery {
  /** Names per page, 1 to 1000; default 100. */
  limit?: number;
  /** The previous page's nextCursor; absent for the first page. */
  cursor?: string;
  /** Only names desired so. */
  state?: DesiredRecord['state'];
  /** Only names whose VM was last seen on this node. */
  node?: string;
  /** Only names whose lease ends before this time (RFC 3339, SPEC 31). */
  expiringBefore?: string;
  /** Only the names of this tenant (SPEC 34); a tenant's own client lists its own alone, and only an admin may name another. */
  tenant?: string;
  /** Only the names that live in this configured cluster (SPEC 32). */
  cluster?: string;
}

/** The listing's parameters, as the API's query takes them. */
export const LISTING_KEYS = ['limit', 'cursor', 'state', 'node', 'expiringBefore', 'tenant', 'cluster'] as const;

/** What the registry's page reads: the names after `after`, in name order, that pass the filters. */
export interface RegistryPageQuery {
  after?: string;
  limit: number;
  state?: DesiredRecord['state'];
  node?: string;
  /** Only names whose lease ends before this time (ms). */
  expiringBefore?: number;
  /** Only the names this tenant owns (SPEC 34). */
  tenant?: string;
  /** Only the names that live in this cluster (SPEC 32): their record's, else the first cluster. */
  cluster?: string;
  /** With `cluster`: the first cluster, which a record naming none lives in. */
  firstCluster?: string;
}

export function encodeCursor(lastName: string): string {
  return Buffer.from(lastName, 'utf8').toString('base64url');
}

/** The name a cursor carries, or undefined when it is not one this service gave. */
function decodeCursor(cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const name = Buffer.from(cursor, 'base64url').toString('utf8');
  return DNS_LABEL.test(name) && encodeCursor(name) === cursor ? name : undefined;
}

function isState(value: unknown): value is DesiredRecord['state'] {
  return (LISTED_STATES as readonly unknown[]).includes(value);
}

/** The registry's query from a caller's, or every failing field. Unknown keys are refused too. */
export function parseVmListQuery(input: unknown): { ok: true; value: RegistryPageQuery } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input))) {
    return { ok: false, errors: [{ field: 'query', message: `must be an object of ${LISTING_KEYS.join(', ')}` }] };
  }
  const given = (input ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!(LISTING_KEYS as readonly string[]).includes(key) && given[key] !== undefined) errors.push({ field: key, message: `is not a listing parameter (${LISTING_KEYS.join(', ')})` });
  }
  const value: RegistryPageQuery = { limit: DEFAULT_PAGE_LIMIT };
  const { limit, cursor, state, node, expiringBefore, tenant, cluster } = given;
  if (limit !== undefined) {
    if (typeof limit === 'number' && Number.isInteger(limit) && limit >= 1 && limit <= MAX_PAGE_LIMIT) value.limit = limit;
    else errors.push({ field: 'limit', message: `must be an integer from 1 to ${MAX_PAGE_LIMIT}` });
  }
  if (cursor !== undefined) {
    const after = typeof cursor === 'string' ? decodeCursor(cursor) : undefined;
    if (after === undefined) errors.push({ field: 'cursor', message: "must be a previous page's nextCursor, as given" });
    else value.after = after;
  }
  if (state !== undefined) {
    if (isState(state)) value.state = state;
    else errors.push({ field: 'state', message: `must be one of ${LISTED_STATES.join(', ')}` });
  }
  if (node !== undefined) {
    if (typeof node === 'string' && node !== '') value.node = node;
    else errors.push({ field: 'node', message: 'must be a node name' });
  }
  if (expiringBefore !== undefined) {
    const at = parseRfc3339(expiringBefore);
    if (at !== undefined) value.expiringBefore = at.getTime();
    else errors.push({ field: 'expiringBefore', message: 'must be an RFC 3339 date-time with an offset, e.g. 2030-01-02T03:04:05Z' });
  }
  if (tenant !== undefined) {
    if (typeof tenant === 'string' && TENANT_NAME_RE.test(tenant)) value.tenant = tenant;
    else errors.push({ field: 'tenant', message: 'must be a tenant name: 1 to 32 of a-z, 0-9 and "-", starting with a letter' });
  }
  if (cluster !== undefined) {
    if (typeof cluster === 'string' && CLUSTER_NAME_RE.test(cluster)) value.cluster = cluster;
    else errors.push({ field: 'cluster', message: 'must be a cluster name: 1 to 20 of a-z, 0-9 and "-", starting with a letter' });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value };
}

/**
 * A page query's cluster against the configured ones (SPEC 32): several,
 * the query with the first cluster for the index; one (`default`), no
 * filter at all, as every name is in it. Another name is the error naming `cluster`.
 */
export function withConfiguredCluster(query: RegistryPageQuery, clusters: readonly string[] | undefined): { ok: true; value: RegistryPageQuery } | { ok: false; errors: FieldError[] } {
  if (query.cluster === undefined) return { ok: true, value: query };
  const names = clusters ?? [DEFAULT_CLUSTER];
  if (!names.includes(query.cluster)) return { ok: false, errors: [{ field: 'cluster', message: `must be a configured cluster: ${names.join(', ')}` }] };
  const { cluster, firstCluster: _first, ...rest } = query;
  return { ok: true, value: clusters === undefined ? rest : { ...rest, cluster, firstCluster: names[0] ?? cluster } };
}
