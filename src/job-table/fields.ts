// The building blocks of the job schemas: one declarative rule table per
// job (src/job-table/<name>.schema.ts) gives both the validator that decides
// (producer, HTTP API and worker: SPEC 1) and the JSON Schema that
// documents it, so the two never disagree. No worker code here.
import { IMPLICIT_IMAGE, defaultImageOf } from '../config/images.js';
import { leaseMaxSeconds } from '../config/leases.js';
import { PRODUCER_DEFAULTS } from '../config/producer.js';
import type { Config, ImageConfig, LeaseConfig, NetworkPoolConfig } from '../config/types.js';
import type { NetworkLimits, NodeNetwork } from '../addresses/pool-for.js';
import type { PoolConfig } from '../pools/types.js';

export interface FieldError {
  field: string;
  message: string;
}

/** What validation needs from config: bounds, defaults, node names, images. */
export interface JobLimits {
  nodes: string[];
  limits: Config['proxmox']['limits'];
  defaults: Config['proxmox']['defaults'];
  /** Each image (SPEC 27) and the nodes that serve it. */
  images: Record<string, string[]>;
  defaultImage: string;
  /** A create's lease (SPEC 31): its default ttl and onExpiry, and the longest ttl (leases.maxSeconds, or the ceiling for "no bound"). */
  leases: { defaultSeconds: number; maxSeconds: number; onExpiry: LeaseConfig['onExpiry'] };
  /** The address pools and the nodes' networks a create's pool is chosen by (SPEC 29); absent: no pools. */
  networks?: NetworkLimits;
  /** The warm pools a create may claim from (SPEC 30); absent: none. */
  pools?: PoolConfig[];
  /**
   * Each cluster (SPEC 32) and what a create placed there is checked
   * against, in the configured order; absent: the one-cluster form (a
   * create may name only "default"). The top-level nodes and images are
   * then every cluster's together, so the field table's checks pass any
   * cluster's, and the door checks the chosen cluster's.
   */
  clusters?: ClusterLimits[];
}

/** One cluster's part of JobLimits (SPEC 32). */
export interface ClusterLimits {
  name: string;
  nodes: string[];
  images: Record<string, string[]>;
  defaultImage: string;
  networks?: NetworkLimits;
}

/** One cluster as limitsFromConfig reads it (SPEC 32): a service ClusterConfig, or the producer's (src/config/producer.ts). */
export interface LimitsCluster {
  name: string;
  nodes: ({ name: string } & NodeNetwork)[];
  images: Pick<ImageConfig, 'name' | 'templates'>[];
  defaultImage: string;
  networks?: NetworkPoolConfig[];
}

/** What limitsFromConfig reads: the service's Config, or the producer's (src/config/producer.ts), which knows no templates. */
export interface LimitsSource {
  proxmox: Pick<Config['proxmox'], 'defaults' | 'limits' | 'defaultImage'> & {
    nodes: ({ name: string } & NodeNetwork)[];
    images: Pick<ImageConfig, 'name' | 'templates'>[];
    /** Absent (a config from before pools): none. */
    networks?: NetworkPoolConfig[];
    /** Several clusters (SPEC 32); absent or empty: the one-cluster form. */
    clusters?: LimitsCluster[];
    /** Set on one cluster's view (src/config/clusters.ts configForCluster): its own keys are the top level's. */
    clusterName?: string;
  };
  /** Absent (the provider's config, which checks no lease): the service's defaults. */
  leases?: Pick<LeaseConfig, 'defaultSeconds' | 'maxSeconds' | 'onExpiry'>;
  /** Absent (a config from before warm pools): none. */
  pools?: PoolConfig[];
}

function nodeNetwork({ bridge, vlanTag }: NodeNetwork): NodeNetwork {
  return { ...(bridge === undefined ? {} : { bridge }), ...(vlanTag === undefined ? {} : { vlanTag }) };
}

/** One cluster's (or the one-cluster form's) node names, images and their serving nodes, default image and networks. */
function clusterLimitsOf(cluster: Omit<LimitsCluster, 'name'>): Omit<ClusterLimits, 'name'> & { networks: NetworkLimits } {
  const { nodes, images } = cluster;
  const names = nodes.map((node) => node.name);
  return {
    nodes: names,
    images: images.length === 0 ? { [IMPLICIT_IMAGE]: names } : Object.fromEntries(images.map((image) => [image.name, names.filter((node) => image.templates[node] !== undefined)])),
    defaultImage: defaultImageOf(cluster),
    networks: { pools: cluster.networks ?? [], nodes: Object.fromEntries(nodes.map((node) => [node.name, nodeNetwork(node)])) },
  };
}

/**
 * SPEC 32: every cluster's nodes and images together (a node or image
 * name may be in several), so the field table passes what any cluster
 * has; the door checks the chosen cluster's (src/queue/cluster-placement.ts).
 * The default image and the networks are the first cluster's.
 */
function unionOf(clusters: readonly ClusterLimits[]): Omit<ClusterLimits, 'name'> {
  const nodes = [...new Set(clusters.flatMap((cluster) => cluster.nodes))];
  const images: Record<string, string[]> = {};
  for (const cluster of clusters) {
    for (const [image, serving] of Object.entries(cluster.images)) images[image] = [...new Set([...(images[image] ?? []), ...serving])];
  }
  const [first] = clusters;
  return { nodes, images, defaultImage: first?.defaultImage ?? '', ...(first?.networks === undefined ? {} : { networks: first.networks }) };
}

/**
 * The image names and their serving nodes from the node names and each
 * image's templates' keys alone: without proxmox.images, the one implicit
 * image every node serves (a service config refuses a node without a
 * template then, src/config/images.ts). Several clusters (SPEC 32): each
 * cluster's in `clusters`, and at the top every cluster's together
 * (unionOf), or, on one cluster's view, that cluster's own.
 */
export function limitsFromConfig(config: LimitsSource): JobLimits {
  const { defaultSeconds, maxSeconds, onExpiry } = config.leases ?? PRODUCER_DEFAULTS.leases;
  const leases = { defaultSeconds, maxSeconds, onExpiry };
  const clusters = (config.proxmox.clusters ?? []).map((cluster) => ({ name: cluster.name, ...clusterLimitsOf(cluster) }));
  const own = clusterLimitsOf(config.proxmox);
  const top = clusters.length === 0 || config.proxmox.clusterName !== undefined ? own : unionOf(clusters);
  return {
    nodes: top.nodes,
    limits: config.proxmox.limits,
    defaults: config.proxmox.defaults,
    images: top.images,
    defaultImage: top.defaultImage,
    leases: { ...leases, maxSeconds: leaseMaxSeconds(leases) },
    networks: top.networks ?? { pools: [], nodes: {} },
    pools: config.pools ?? [],
    ...(clusters.length === 0 ? {} : { clusters }),
  };
}

export interface StringRule {
  kind: 'string';
  description: string;
  pattern?: RegExp;
  /** Said in the error when the pattern does not match. */
  patternText?: string;
  /** Bound on the UTF-8 encoded size (SPEC 1, 24: sizes are bytes everywhere). */
  maxBytes?: number;
  /** Allowed values, from config (node names). */
  oneOf?: (limits: JobLimits) => string[];
  /** What is wrong with the value given the fields checked before it (the image a named node cannot serve), or undefined. */
  withOthers?: (value: string, checked: Readonly<Record<string, unknown>>, limits: JobLimits) => string | undefined;
}

interface IntegerRule {
  kind: 'integer';
  description: string;
  min: number;
  max: number | ((limits: JobLimits) => number);
}

interface BooleanRule {
  kind: 'boolean';
  description: string;
}

/** A list of strings (sshKeys), each checked on its own; an error names the item as `<field>[i]`. */
export interface StringsRule {
  kind: 'strings';
  description: string;
  maxItems: number;
  /** Bound on each item's UTF-8 encoded size. */
  itemMaxBytes: number;
  /** What one item is, for the JSON Schema. */
  itemDescription: string;
  /** What is wrong with one item (said after `<field>[i]`), or undefined. */
  itemProblem?: (item: string) => string | undefined;
}

/**
 * An object only the service writes into a stored job (a create's address
 * lease, SPEC 29): checked by `problem`, documented by `schema`.
 */
export interface ObjectRule<T = unknown> {
  kind: 'object';
  description: string;
  /** What is wrong with a value (said after the field's name), or undefined when it is a T. */
  problem: (value: unknown) => string | undefined;
  /** Its JSON Schema. */
  schema: Record<string, unknown>;
  /** The most bytes its JSON takes (the body limit). */
  maxJsonBytes: number;
  /** Type only: what a valid value is. */
  readonly valueType?: T;
}

export type FieldRule = StringRule | IntegerRule | BooleanRule | StringsRule | ObjectRule;

/**
 * `required`: the caller must send it; `defaulted`: filled from `default`
 * when left out, so the validated data always has it; `optional`: may be
 * absent.
 */
type Presence = 'required' | 'defaulted' | 'optional';

/** How `pve-provisioner enqueue` takes a field (SPEC 6). */
export interface FlagSpec {
  /** The long option without its dashes. */
  name: string;
  /** The flag names a file whose UTF-8 text is the value. */
  file?: boolean;
  /** What a boolean's flag sets (true when absent): `--no-wait-for-address` sets false. */
  sets?: boolean;
}

export interface FieldSpec<R extends FieldRule = FieldRule, P extends Presence = Presence> {
  rule: R;
  presence: P;
  /** Filled in when the caller leaves the field out (presence `defaulted`). */
  default?: (limits: JobLimits) => unknown;
  /** The CLI flag; absent: the CLI does not take the field. */
  flag?: FlagSpec;
}

export type JobFields = Record<string, FieldSpec>;

type ValueOfRule<R> = R extends StringRule
  ? string
  : R extends IntegerRule
    ? number
    : R extends BooleanRule
      ? boolean
      : R extends StringsRule
        ? string[]
        : R extends ObjectRule<infer T>
          ? T
          : never;
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** A field table's values as a type, the fields of presence `P` optional. */
type ValuesOf<F extends JobFields, P extends Presence> = Simplify<
  { [K in keyof F as F[K]['presence'] extends P ? never : K]: ValueOfRule<F[K]['rule']> } & {
    [K in keyof F as F[K]['presence'] extends P ? K : never]?: ValueOfRule<F[K]['rule']>;
  }
>;

/**
 * The data a field table validates to, as a type: what the validator
 * returns is this, so the table is the one declaration of a job's data.
 */
export type DataOf<F extends JobFields> = ValuesOf<F, 'optional'>;

/** What a typed caller may send (the producer library's parameters): the defaulted fields optional too. */
export type InputOf<F extends JobFields> = ValuesOf<F, 'optional' | 'defaulted'>;

/** The same field, required (a stored job always carries it). */
export function requiredField<R extends FieldRule>(field: FieldSpec<R>): FieldSpec<R, 'required'> {
  return { ...field, presence: 'required' };
}

export type Validation<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** An integer rule's maximum, from config when it is a function of the limits. */
export function maxOf(rule: { max: number | ((limits: JobLimits) => number) }, limits: JobLimits): number {
  return typeof rule.max === 'function' ? rule.max(limits) : rule.max;
}

function textProblem(value: unknown, maxBytes: number | undefined): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (LONE_SURROGATE.test(value)) return 'must be valid UTF-8 text';
  if (maxBytes !== undefined && Buffer.byteLength(value, 'utf8') > maxBytes) {
    return `must be at most ${maxBytes} bytes (UTF-8), got ${Buffer.byteLength(value, 'utf8')}`;
  }
  return undefined;
}

/** Every failing item of a list field, each named `<field>[i]`; the list as a whole named `<field>`. */
export function listProblems(field: string, rule: StringsRule, value: unknown): FieldError[] {
  if (!Array.isArray(value)) return [{ field, message: 'must be a list of strings' }];
  if (value.length > rule.maxItems) return [{ field, message: `must have at most ${rule.maxItems} items, got ${value.length}` }];
  return value.flatMap((item: unknown, i) => {
    const problem = textProblem(item, rule.itemMaxBytes) ?? rule.itemProblem?.(item as string);
    return problem === undefined ? [] : [{ field: `${field}[${i}]`, message: problem }];
  });
}

function checkField(rule: Exclude<FieldRule, StringsRule>, value: unknown, limits: JobLimits): string | undefined {
  switch (rule.kind) {
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'object':
      return rule.problem(value);
    case 'integer': {
      const max = maxOf(rule, limits);
      if (typeof value !== 'number' || !Number.isInteger(value)) return `must be an integer from ${rule.min} to ${max}`;
      if (value < rule.min || value > max) return `must be from ${rule.min} to ${max}, got ${value}`;
      return undefined;
    }
    case 'string': {
      const text = textProblem(value, rule.maxBytes);
      if (text !== undefined || typeof value !== 'string') return text;
      if (rule.pattern && !rule.pattern.test(value)) return `must be ${rule.patternText ?? `matching ${rule.pattern.source}`}`;
      if (rule.oneOf) {
        const allowed = rule.oneOf(limits);
        if (!allowed.includes(value)) return `must be one of the configured values: ${allowed.join(', ')}`;
      }
      return undefined;
    }
  }
}

function crossProblem(rule: Exclude<FieldRule, StringsRule>, given: unknown, checked: Record<string, unknown>, limits: JobLimits): string | undefined {
  return rule.kind === 'string' && typeof given === 'string' ? rule.withOthers?.(given, checked, limits) : undefined;
}

/** Checks every field, collecting every failure (SPEC 1), and fills defaults. */
export function validateFields<T>(fields: JobFields, data: unknown, limits: JobLimits): Validation<T> {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { ok: false, errors: [{ field: '(data)', message: 'must be a JSON object' }] };
  }
  const input = data as Record<string, unknown>;
  const errors: FieldError[] = [];
  const value: Record<string, unknown> = {};
  for (const key of Object.keys(input)) {
    if (!Object.hasOwn(fields, key)) errors.push({ field: key, message: 'is not a known field' });
  }
  for (const [field, spec] of Object.entries(fields)) {
    let given = input[field];
    let defaulted = false;
    if (given === undefined && spec.default) {
      given = spec.default(limits);
      defaulted = true;
    }
    if (given === undefined) {
      if (spec.presence === 'required') errors.push({ field, message: 'is required' });
      continue;
    }
    if (spec.rule.kind === 'strings') {
      const problems = listProblems(field, spec.rule, given);
      if (problems.length === 0) value[field] = given;
      else errors.push(...problems);
      continue;
    }
    // A default from config is checked like a given value: the worker would refuse it.
    const problem = checkField(spec.rule, given, limits) ?? crossProblem(spec.rule, given, value, limits);
    if (problem === undefined) value[field] = given;
    else errors.push({ field, message: defaulted ? `${problem} (the default from config)` : problem });
  }
  return errors.length === 0 ? { ok: true, value: value as T } : { ok: false, errors };
}

function ruleJsonSchema(rule: FieldRule, limits: JobLimits): Record<string, unknown> {
  switch (rule.kind) {
    case 'boolean':
      return { type: 'boolean', description: rule.description };
    case 'object':
      return { ...rule.schema, description: rule.description };
    case 'integer':
      return { type: 'integer', minimum: rule.min, maximum: maxOf(rule, limits), description: rule.description };
    case 'string': {
      const out: Record<string, unknown> = { type: 'string', description: rule.description };
      if (rule.pattern) out.pattern = rule.pattern.source;
      // JSON Schema's maxLength counts characters; the bound is on bytes,
      // which no standard keyword states, so it is an extension.
      if (rule.maxBytes !== undefined) out['x-maxBytes'] = rule.maxBytes;
      // Values from config stay out of `enum`: a client generated from the
      // document would go stale when the config changes.
      if (rule.oneOf) out.description = `${rule.description}. Configured now: ${rule.oneOf(limits).join(', ') || 'none'}`;
      return out;
    }
    case 'strings':
      return {
        type: 'array',
        description: rule.description,
        maxItems: rule.maxItems,
        items: { type: 'string', description: rule.itemDescription, 'x-maxBytes': rule.itemMaxBytes },
      };
  }
}

/** The same rules as a JSON Schema object (documentation; the validator decides). */
export function fieldsJsonSchema(fields: JobFields, limits: JobLimits): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [field, spec] of Object.entries(fields)) {
    const schema = ruleJsonSchema(spec.rule, limits);
    if (spec.default) schema.default = spec.default(limits);
    properties[field] = schema;
    if (spec.presence === 'required') required.push(field);
  }
  return { type: 'object', additionalProperties: false, properties, required };
}

/** Shared rules. */
export const DNS_LABEL = /^(?=.{1,63}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
export const UID = /^[A-Za-z0-9_.-]{1,64}$/;
export const BRIDGE = /^[A-Za-z][A-Za-z0-9_.-]{0,14}$/;
export const TEXT_MAX_BYTES = 64 * 1024;

export const nameField = {
  presence: 'required',
  flag: { name: 'name' },
  rule: {
    kind: 'string',
    description: 'VM name, a DNS label',
    maxBytes: 63,
    pattern: DNS_LABEL,
    patternText: 'a DNS label: 1 to 63 of a-z, 0-9 and "-", not starting or ending with "-"',
  },
} satisfies FieldSpec;

export const uidField = {
  presence: 'optional',
  flag: { name: 'uid' },
  rule: {
    kind: 'string',
    description: 'Owner id of the VM (1 to 64 of A-Z a-z 0-9 _ . -)',
    maxBytes: 64,
    pattern: UID,
    patternText: '1 to 64 of A-Z, a-z, 0-9, "_", "." and "-"',
  },
} satisfies FieldSpec;

/**
 * Added by the producer to the stored jobs of a tenant's name (SPEC 34):
 * the tenant that owns it, so a job's view, events and webhooks reach that
 * tenant alone; absent on jobs from before tenants (the default tenant's).
 */
export const tenantField = {
  presence: 'optional',
  rule: { kind: 'string', description: 'The tenant that owns the name (SPEC 34); set by the producer from the caller\'s token', maxBytes: 32, pattern: /^[a-z][a-z0-9-]{0,31}$/, patternText: '1 to 32 of a-z, 0-9 and "-", starting with a letter' },
} satisfies FieldSpec;

/** Added by the producer to stored create and delete jobs (SPEC 2). */
export const generationField = {
  presence: 'required',
  rule: { kind: 'integer', description: 'Desired-state generation of the name', min: 1, max: Number.MAX_SAFE_INTEGER },
} satisfies FieldSpec;
