// The warm pools of `pools` (SPEC 30): each entry checked field by field,
// then against the rest of the config (the image and its default user,
// the node, the create bounds) and as a list (names once, one pool per
// shape), and its absent fields filled as a create's would be. The config
// loader (pool-format.ts, index.ts) and the producer library (producer.ts)
// both check with these, so a pool the service refuses the library
// refuses too. Every problem names `pools[i].<field>`. Producer-safe.
import type { PoolConfig } from '../pools/types.js';
import { shapeFingerprint } from '../pools/fingerprint.js';
import { IMPLICIT_IMAGE, defaultImageOf } from './images.js';
import { BRIDGE_RE, IMAGE_NAME_RE, NODE_NAME_RE, isInt } from './name-patterns.js';
import type { Config } from './types.js';

export const POOL_KEYS = ['name', 'image', 'cores', 'memoryMiB', 'diskGiB', 'bridge', 'vlanTag', 'node', 'minIdle', 'maxIdle', 'maxAgeMinutes', 'cluster'] as const;
export const POOL_FORM = `{${POOL_KEYS.map((key) => (key === 'name' || key === 'minIdle' ? key : `${key}?`)).join(', ')}}`;

/** 1 to 20 of a-z, 0-9, `-`, starting with a letter: a member's name `pvep-pool-<pool>-<n>` stays a DNS label. */
export const POOL_NAME_RE = /^[a-z][a-z0-9-]{0,19}$/;
/** Most idle members a pool keeps, and most members it holds. */
export const MAX_POOL_IDLE = 100;
export const DEFAULT_MAX_AGE_MINUTES = 1440;
/** Longest maxAgeMinutes: a year. */
export const MAX_AGE_MINUTES = 365 * 24 * 60;
/** Proxmox's floor for memory, as a create's (src/job-table/create.schema.ts). */
const MIN_MEMORY_MIB = 16;

/** An entry as given: the shape's fields, maxIdle and maxAgeMinutes may be absent. */
export type PoolInput = Pick<PoolConfig, 'name' | 'minIdle'> & Partial<Omit<PoolConfig, 'name' | 'minIdle'>>;

/** What the pools are checked against and default from: the create's defaults and bounds, the nodes, the images. */
export interface PoolContext {
  nodes: { name: string }[];
  images: { name: string; templates: Record<string, unknown>; user?: string }[];
  defaultImage: string;
  defaults: Config['proxmox']['defaults'];
  limits: Config['proxmox']['limits'];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function intProblem(value: unknown, at: string, min: number, max: number): string | undefined {
  return isInt(value) && value >= min && value <= max ? undefined : `${at} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`;
}

/** What is wrong with entry `i` on its own, each problem naming `pools[i].<field>`; empty when nothing is. */
export function poolEntryProblems(value: unknown, i: number): string[] {
  const at = `pools[${i}]`;
  if (!isObject(value)) return [`${at} must be an object ${POOL_FORM}`];
  const extra = Object.keys(value).find((key) => !(POOL_KEYS as readonly string[]).includes(key));
  if (extra !== undefined) return [`${at}.${extra} is not a pool key; allowed: ${POOL_KEYS.join(', ')}`];
  const problems: (string | undefined)[] = [];
  if (typeof value.name !== 'string' || !POOL_NAME_RE.test(value.name)) problems.push(`${at}.name must be 1 to 20 of a-z, 0-9 and "-", starting with a letter, got ${JSON.stringify(value.name)}`);
  if (value.image !== undefined && (typeof value.image !== 'string' || !IMAGE_NAME_RE.test(value.image))) problems.push(`${at}.image must be an image name of proxmox.images, got ${JSON.stringify(value.image)}`);
  for (const [field, min] of [['cores', 1], ['memoryMiB', MIN_MEMORY_MIB], ['diskGiB', 1]] as const) {
    if (value[field] !== undefined) problems.push(intProblem(value[field], `${at}.${field}`, min, Number.MAX_SAFE_INTEGER));
  }
  if (value.bridge !== undefined && (typeof value.bridge !== 'string' || !BRIDGE_RE.test(value.bridge))) problems.push(`${at}.bridge must be a bridge name such as "vmbr0", got ${JSON.stringify(value.bridge)}`);
  if (value.vlanTag !== undefined) problems.push(intProblem(value.vlanTag, `${at}.vlanTag`, 1, 4094));
  if (value.node !== undefined && (typeof value.node !== 'string' || !NODE_NAME_RE.test(value.node))) problems.push(`${at}.node must be a node name of proxmox.nodes, got ${JSON.stringify(value.node)}`);
  problems.push(value.minIdle === undefined ? `${at}.minIdle is required: the idle VMs the pool keeps, 0 to ${MAX_POOL_IDLE}` : intProblem(value.minIdle, `${at}.minIdle`, 0, MAX_POOL_IDLE));
  if (value.maxIdle !== undefined) {
    const least = isInt(value.minIdle) ? Math.max(0, value.minIdle) : 0;
    problems.push(intProblem(value.maxIdle, `${at}.maxIdle`, least, MAX_POOL_IDLE) === undefined ? undefined : `${at}.maxIdle must be an integer from minIdle (${least}) to ${MAX_POOL_IDLE}, got ${JSON.stringify(value.maxIdle)}`);
  }
  if (value.maxAgeMinutes !== undefined) problems.push(intProblem(value.maxAgeMinutes, `${at}.maxAgeMinutes`, 0, MAX_AGE_MINUTES));
  if (value.cluster !== undefined && (typeof value.cluster !== 'string' || !/^[a-z][a-z0-9-]{0,19}$/.test(value.cluster))) problems.push(`${at}.cluster must be a cluster name of proxmox.clusters, got ${JSON.stringify(value.cluster)}`);
  return problems.filter((problem): problem is string => problem !== undefined);
}

/** What is wrong with the list on its own (not a list, a bad entry, a name twice); empty when nothing is. */
export function poolListProblems(value: unknown): string[] {
  if (!Array.isArray(value)) return [`pools must be a JSON list of ${POOL_FORM}`];
  const problems = value.flatMap((entry: unknown, i) => poolEntryProblems(entry, i));
  if (problems.length > 0) return problems;
  const names = (value as PoolInput[]).map((pool) => pool.name);
  names.forEach((name, i) => {
    const first = names.indexOf(name);
    if (first < i) problems.push(`pools[${i}].name "${name}" is also pools[${first}]'s; each pool needs a name of its own`);
  });
  return problems;
}

/** A checked entry with its defaults: the shape as a create's (defaultImage, defaults.*), maxIdle minIdle, maxAgeMinutes 1440. */
export function withPoolDefaults(pool: PoolInput, context: Pick<PoolContext, 'defaults' | 'defaultImage'> & { images: { name: string }[] }): PoolConfig {
  const { defaults } = context;
  return {
    ...pool,
    image: pool.image ?? defaultImageOf(context),
    cores: pool.cores ?? defaults.cores,
    memoryMiB: pool.memoryMiB ?? defaults.memoryMiB,
    diskGiB: pool.diskGiB ?? defaults.diskGiB,
    maxIdle: pool.maxIdle ?? pool.minIdle,
    maxAgeMinutes: pool.maxAgeMinutes ?? DEFAULT_MAX_AGE_MINUTES,
  };
}

function imageProblem(pool: PoolConfig, at: string, context: PoolContext, requireUser: boolean): string | undefined {
  if (context.images.length === 0) {
    return requireUser ? `${at}.image is the implicit image "${IMPLICIT_IMAGE}" (proxmox.images is empty), which has no user: configure proxmox.images with a user for the pool's image` : undefined;
  }
  const image = context.images.find((candidate) => candidate.name === pool.image);
  if (image === undefined) return `${at}.image "${pool.image}" is not an image of proxmox.images (${context.images.map((i) => i.name).join(', ')})`;
  if (requireUser && image.user === undefined) return `${at}.image "${pool.image}" has no user: set proxmox.images[].user, the image's default cloud-init user whose authorized_keys a claim writes`;
  if (pool.node !== undefined && image.templates[pool.node] === undefined) return `${at}.node "${pool.node}" does not serve image "${pool.image}" (served by: ${Object.keys(image.templates).join(', ') || 'no node'})`;
  return undefined;
}

/**
 * What is wrong with complete pools against the rest of the config and
 * with each other (one pool per shape), each problem naming its field;
 * `requireUser`: the service's check (the producer's images carry no user).
 */
export function poolContextProblems(pools: readonly PoolConfig[], context: PoolContext, requireUser: boolean): string[] {
  const problems: string[] = [];
  const nodeNames = context.nodes.map((node) => node.name);
  const { limits } = context;
  pools.forEach((pool, i) => {
    const at = `pools[${i}]`;
    if (pool.node !== undefined && !nodeNames.includes(pool.node)) problems.push(`${at}.node "${pool.node}" is not in proxmox.nodes (${nodeNames.join(', ')})`);
    else {
      const image = imageProblem(pool, at, context, requireUser);
      if (image !== undefined) problems.push(image);
    }
    if (pool.cores > limits.maxCores) problems.push(`${at}.cores (${pool.cores}) is above proxmox.limits.maxCores (${limits.maxCores})`);
    if (pool.memoryMiB > limits.maxMemoryMiB) problems.push(`${at}.memoryMiB (${pool.memoryMiB}) is above proxmox.limits.maxMemoryMiB (${limits.maxMemoryMiB})`);
    if (pool.diskGiB > limits.maxDiskGiB) problems.push(`${at}.diskGiB (${pool.diskGiB}) is above proxmox.limits.maxDiskGiB (${limits.maxDiskGiB})`);
    const twin = pools.findIndex((other) => shapeFingerprint(other) === shapeFingerprint(pool) && other.cluster === pool.cluster);
    if (twin < i) problems.push(`${at} (${pool.name}) has the same shape as pools[${twin}] (${pools[twin]?.name ?? ''}); a create could claim from either: give each pool a shape of its own`);
  });
  return problems;
}
