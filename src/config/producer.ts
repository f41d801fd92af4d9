// What the producer library reads of the service's configuration (SPEC 6,
// 27, 29): the nodes (with their networks), defaults and limits a job is
// checked against, the address pools a create takes its lease from, the
// job options and the tombstone time. The service's defaults fill anything a
// caller leaves out, so a backend enqueues without the config loader
// (convict). test/client/producer-config.test.ts keeps them equal to
// loadConfig()'s defaults.
import { IMPLICIT_IMAGE } from './images.js';
import { leaseProblems } from './leases.js';
import { networkListProblems, withNetworkDefaults, type NetworkPoolInput } from './network-pools.js';
import { poolContextProblems, poolListProblems, withPoolDefaults, type PoolInput } from './pools.js';
import type { PoolConfig } from '../pools/types.js';
import { CLUSTER_NAME_RE } from './name-patterns.js';
import { DEFAULT_CLUSTER } from './clusters.js';
import type { Config, ImageConfig, LeaseConfig, NetworkPoolConfig, NodeConfig } from './types.js';

type JobOptionKey = 'attempts' | 'backoffMs' | 'keepCompletedCount' | 'keepCompletedSeconds' | 'keepFailedCount' | 'keepFailedSeconds';

/** The job options the producer gives each job it adds (SPEC 1, 4). */
export type ProducerJobOptions = Pick<Config['jobs'], JobOptionKey>;

/** What a create's lease fields (SPEC 31) are checked against and default from. */
/** The leases' keys an accept reads: the create's lease, and when its warning timer goes (warnSeconds). */
export type ProducerLeases = Pick<LeaseConfig, 'defaultSeconds' | 'maxSeconds' | 'warnSeconds' | 'onExpiry'>;

/** A node as the producer sees it: its name, and the network its VMs land on when a create names none (SPEC 29). */
export type ProducerNode = Pick<NodeConfig, 'name' | 'bridge' | 'vlanTag'>;

/** One of several clusters as the producer sees it (SPEC 32): what a create placed there is checked against and takes its address lease from. */
export interface ProducerCluster {
  name: string;
  nodes: ProducerNode[];
  images: Pick<ImageConfig, 'name' | 'templates'>[];
  /** Empty: its first image, or the implicit `default` without images. */
  defaultImage: string;
  networks: NetworkPoolConfig[];
}

/** A cluster as given (a service ClusterConfig will do): what it leaves out is the single-cluster keys' (src/config/clusters.ts resolveCluster). */
export interface ProducerClusterInput {
  name: string;
  nodes?: ProducerNode[];
  images?: Pick<ImageConfig, 'name' | 'templates'>[];
  defaultImage?: string;
  networks?: NetworkPoolInput[];
}

export interface ProducerConfig {
  proxmox: {
    /** The configured nodes: a create's `node` must be one of their names; bridge and vlanTag pick a create's address pool (SPEC 29). */
    nodes: ProducerNode[];
    defaults: Config['proxmox']['defaults'];
    limits: Config['proxmox']['limits'];
    /** The images (SPEC 27): a create's `image` must be one, on a node its templates name. Templates' values are not read. */
    images: Pick<ImageConfig, 'name' | 'templates'>[];
    /** Empty: the first image, or the implicit `default` without images. */
    defaultImage: string;
    /** The address pools (SPEC 29): a create on a pooled network takes its lease at the door. */
    networks: NetworkPoolConfig[];
    /**
     * Several clusters (SPEC 32), in the order placement prefers them: a
     * create is placed in one and checked against its nodes, images and
     * networks. Absent: the one-cluster form (the keys above).
     */
    clusters?: ProducerCluster[];
  };
  /** The warm pools (SPEC 30): a create of a pool's shape claims an idle member at the door. */
  pools: PoolConfig[];
  jobs: ProducerJobOptions;
  registry: Config['registry'];
  leases: ProducerLeases;
}

/** Any part of a ProducerConfig; the whole service Config is one too. */
export interface ProducerSettings {
  proxmox?: {
    nodes?: ProducerNode[];
    defaults?: Partial<Config['proxmox']['defaults']>;
    limits?: Partial<Config['proxmox']['limits']>;
    images?: Pick<ImageConfig, 'name' | 'templates'>[];
    defaultImage?: string;
    /** dns, exclude and reuseCooldownSeconds default as the service's do. */
    networks?: NetworkPoolInput[];
    /** Several clusters (SPEC 32); absent or empty: the one-cluster form. */
    clusters?: ProducerClusterInput[];
  };
  /** The shape, maxIdle and maxAgeMinutes default as the service's do. */
  pools?: PoolInput[];
  jobs?: Partial<ProducerJobOptions>;
  registry?: Partial<Config['registry']>;
  leases?: Partial<ProducerLeases>;
}

/** The service's defaults: config/default.json over src/config/schema.ts. */
export const PRODUCER_DEFAULTS: ProducerConfig = {
  proxmox: {
    nodes: [{ name: 'pve1' }, { name: 'pve2' }],
    defaults: { cores: 2, memoryMiB: 2048, diskGiB: 10 },
    limits: { maxCores: 32, maxMemoryMiB: 131072, maxDiskGiB: 2048 },
    images: [],
    defaultImage: '',
    networks: [],
  },
  pools: [],
  jobs: { attempts: 10, backoffMs: 2000, keepCompletedCount: 1000, keepCompletedSeconds: 86400, keepFailedCount: 5000, keepFailedSeconds: 604800 },
  registry: { tombstoneSeconds: 604800 },
  leases: { defaultSeconds: 0, maxSeconds: 604800, warnSeconds: 300, onExpiry: 'delete' },
};

/** Counts and ages that may be 0 (keep none, no age bound); every other number is at least 1. */
const MAY_BE_ZERO = new Set(['jobs.keepCompletedCount', 'jobs.keepCompletedSeconds', 'jobs.keepFailedCount', 'jobs.keepFailedSeconds', 'leases.defaultSeconds', 'leases.maxSeconds', 'leases.warnSeconds']);

export class ProducerConfigError extends Error {
  override readonly name = 'ProducerConfigError';
}

function checkNumbers(group: string, values: object): void {
  for (const [key, value] of Object.entries(values)) {
    const path = `${group}.${key}`;
    const least = MAY_BE_ZERO.has(path) ? 0 : 1;
    if (!Number.isSafeInteger(value) || (value as number) < least) throw new ProducerConfigError(`config.${path} is ${JSON.stringify(value)}; it must be an integer of at least ${least}`);
  }
}

function checkNodes(nodes: unknown): void {
  if (!Array.isArray(nodes) || nodes.length === 0) throw new ProducerConfigError('config.proxmox.nodes must be a non-empty list of { name, bridge?, vlanTag? }');
  nodes.forEach((node: unknown, i) => {
    const { name, bridge, vlanTag } = (typeof node === 'object' && node !== null ? node : {}) as { name?: unknown; bridge?: unknown; vlanTag?: unknown };
    if (typeof name !== 'string' || name === '') throw new ProducerConfigError(`config.proxmox.nodes[${i}].name must be a non-empty string`);
    if (bridge !== undefined && (typeof bridge !== 'string' || bridge === '')) throw new ProducerConfigError(`config.proxmox.nodes[${i}] (${name}): bridge must be a bridge name such as "vmbr0"`);
    if (vlanTag !== undefined && (!Number.isInteger(vlanTag) || (vlanTag as number) < 1 || (vlanTag as number) > 4094)) {
      throw new ProducerConfigError(`config.proxmox.nodes[${i}] (${name}): vlanTag must be an integer from 1 to 4094`);
    }
  });
}

/** The pools checked as the service checks them (SPEC 29), with their defaults. */
function checkedNetworks(networks: unknown): NetworkPoolConfig[] {
  const problem = networkListProblems(networks)[0];
  if (problem !== undefined) throw new ProducerConfigError(`config.proxmox.networks: ${problem}`);
  return (networks as NetworkPoolInput[]).map(withNetworkDefaults);
}

/**
 * The warm pools checked as the service checks them (SPEC 30), with their
 * defaults; not whether an image has a user, which a producer is not told
 * (the service refuses to start without it). Several clusters (SPEC 32):
 * each pool against its cluster's (absent: the first's) images and nodes.
 */
function checkedPools(pools: unknown, proxmox: ProducerConfig['proxmox']): PoolConfig[] {
  const listProblem = poolListProblems(pools)[0];
  if (listProblem !== undefined) throw new ProducerConfigError(`config.${listProblem}`);
  const given = pools as PoolInput[];
  const clusters = proxmox.clusters ?? [];
  if (clusters.length === 0) {
    // The one-cluster form's one cluster is `default`, as the service's loader has it.
    const named = given.find((pool) => pool.cluster !== undefined && pool.cluster !== DEFAULT_CLUSTER);
    if (named !== undefined) throw new ProducerConfigError(`config.pools (${named.name}): cluster "${named.cluster ?? ''}" is not "${DEFAULT_CLUSTER}", and config.proxmox.clusters is empty`);
    return checkedInContext(given, proxmox);
  }
  const unknown = given.find((pool) => pool.cluster !== undefined && !clusters.some((cluster) => cluster.name === pool.cluster));
  if (unknown !== undefined) throw new ProducerConfigError(`config.pools (${unknown.name}): cluster "${unknown.cluster ?? ''}" is not in config.proxmox.clusters (${clusters.map((c) => c.name).join(', ')})`);
  const inCluster = (pool: PoolInput, i: number): boolean => (pool.cluster ?? clusters[0]?.name) === clusters[i]?.name;
  const checked = clusters.map((cluster, i) => checkedInContext(given.filter((pool) => inCluster(pool, i)), { ...proxmox, ...cluster }));
  // In the given order, each with its cluster's defaults.
  return given.map((pool) => checked.flat().find((filled) => filled.name === pool.name) ?? withPoolDefaults(pool, proxmox));
}

function checkedInContext(pools: PoolInput[], context: ProducerConfig['proxmox']): PoolConfig[] {
  const filled = pools.map((pool) => withPoolDefaults(pool, context));
  const problem = poolContextProblems(filled, context, false)[0];
  if (problem !== undefined) throw new ProducerConfigError(`config.${problem}`);
  return filled;
}

function checkImages({ nodes, images, defaultImage }: Pick<ProducerConfig['proxmox'], 'nodes' | 'images' | 'defaultImage'>): void {
  if (!Array.isArray(images)) throw new ProducerConfigError('config.proxmox.images must be a list of { name, templates }');
  const nodeNames = nodes.map((node) => node.name);
  images.forEach((image: unknown, i) => {
    const { name, templates } = (typeof image === 'object' && image !== null ? image : {}) as { name?: unknown; templates?: unknown };
    if (typeof name !== 'string' || name === '') throw new ProducerConfigError(`config.proxmox.images[${i}].name must be a non-empty string`);
    if (typeof templates !== 'object' || templates === null) throw new ProducerConfigError(`config.proxmox.images[${i}].templates must be an object of node name to template`);
    const unknownNode = Object.keys(templates).find((node) => !nodeNames.includes(node));
    if (unknownNode !== undefined) throw new ProducerConfigError(`config.proxmox.images[${i}] (${name}) names node "${unknownNode}", which is not in config.proxmox.nodes (${nodeNames.join(', ')})`);
  });
  const names = images.length === 0 ? [IMPLICIT_IMAGE] : images.map((image) => image.name);
  if (defaultImage !== '' && !names.includes(defaultImage)) throw new ProducerConfigError(`config.proxmox.defaultImage "${defaultImage}" is not an image (images: ${names.join(', ')})`);
}

/**
 * Several clusters (SPEC 32) as given, each filled from the single-cluster
 * keys where it leaves one out and checked as they are; undefined for the
 * one-cluster form (none or an empty list).
 */
function checkedClusters(given: unknown, top: ProducerConfig['proxmox']): ProducerCluster[] | undefined {
  if (given === undefined) return undefined;
  if (!Array.isArray(given)) throw new ProducerConfigError('config.proxmox.clusters must be a list of { name, nodes?, images?, defaultImage?, networks? }');
  if (given.length === 0) return undefined;
  const clusters = given.map((entry: unknown, i): ProducerCluster => {
    const input = (typeof entry === 'object' && entry !== null ? entry : {}) as Partial<ProducerClusterInput>;
    if (typeof input.name !== 'string' || !CLUSTER_NAME_RE.test(input.name)) throw new ProducerConfigError(`config.proxmox.clusters[${i}].name must be 1 to 20 of a-z, 0-9, "-", starting with a letter`);
    const at = `config.proxmox.clusters[${i}] (${input.name})`;
    const cluster: ProducerCluster = {
      name: input.name,
      nodes: input.nodes ?? top.nodes,
      images: input.images ?? top.images,
      defaultImage: input.defaultImage ?? (input.images === undefined ? top.defaultImage : ''),
      networks: [],
    };
    try {
      cluster.networks = checkedNetworks(input.networks ?? top.networks);
      checkNodes(cluster.nodes);
      checkImages(cluster);
    } catch (err) {
      if (err instanceof ProducerConfigError) throw new ProducerConfigError(`${at}: ${err.message}`);
      throw err;
    }
    return { ...cluster, nodes: cluster.nodes.map(producerNode), images: cluster.images.map(({ name, templates }) => ({ name, templates })) };
  });
  const names = clusters.map((cluster) => cluster.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) throw new ProducerConfigError(`config.proxmox.clusters names cluster "${twice}" twice; each cluster may appear once`);
  return clusters;
}

/** A node's name and network alone (a service NodeConfig has its template too). */
export function producerNode({ name, bridge, vlanTag }: ProducerNode): ProducerNode {
  return { name, ...(bridge === undefined ? {} : { bridge }), ...(vlanTag === undefined ? {} : { vlanTag }) };
}

function checkLeases(leases: ProducerLeases): void {
  const { onExpiry, ...numbers } = leases;
  checkNumbers('leases', numbers);
  if (onExpiry !== 'delete' && onExpiry !== 'stop') throw new ProducerConfigError(`config.leases.onExpiry is ${JSON.stringify(onExpiry)}; it must be "delete" or "stop"`);
  const problem = leaseProblems(leases)[0];
  if (problem !== undefined) throw new ProducerConfigError(`config.${problem}`);
}

/** The settings given, over the service's defaults; throws ProducerConfigError naming a bad key. */
export function producerConfig(given: ProducerSettings = {}): ProducerConfig {
  const { proxmox, jobs, registry, leases } = PRODUCER_DEFAULTS;
  const config: Omit<ProducerConfig, 'pools'> = {
    proxmox: {
      nodes: given.proxmox?.nodes ?? proxmox.nodes,
      defaults: { ...proxmox.defaults, ...given.proxmox?.defaults },
      limits: { ...proxmox.limits, ...given.proxmox?.limits },
      images: given.proxmox?.images ?? proxmox.images,
      defaultImage: given.proxmox?.defaultImage ?? proxmox.defaultImage,
      networks: checkedNetworks(given.proxmox?.networks ?? proxmox.networks),
    },
    jobs: { ...jobs, ...pickJobOptions(given.jobs) },
    registry: { tombstoneSeconds: given.registry?.tombstoneSeconds ?? registry.tombstoneSeconds },
    leases: {
      defaultSeconds: given.leases?.defaultSeconds ?? leases.defaultSeconds,
      maxSeconds: given.leases?.maxSeconds ?? leases.maxSeconds,
      warnSeconds: given.leases?.warnSeconds ?? leases.warnSeconds,
      onExpiry: given.leases?.onExpiry ?? leases.onExpiry,
    },
  };
  checkNodes(config.proxmox.nodes);
  checkImages(config.proxmox);
  const clusters = checkedClusters(given.proxmox?.clusters, config.proxmox);
  if (clusters !== undefined) config.proxmox.clusters = clusters;
  checkNumbers('proxmox.defaults', config.proxmox.defaults);
  checkNumbers('proxmox.limits', config.proxmox.limits);
  checkNumbers('jobs', config.jobs);
  checkNumbers('registry', config.registry);
  checkLeases(config.leases);
  // After the rest: a pool is checked against the images, nodes, defaults and limits.
  return { ...config, pools: checkedPools(given.pools ?? PRODUCER_DEFAULTS.pools, config.proxmox) };
}

/** Only the job options of `jobs` (a service Config's jobs carry worker keys too). */
function pickJobOptions(jobs: Partial<ProducerJobOptions> = {}): Partial<ProducerJobOptions> {
  const keys = Object.keys(PRODUCER_DEFAULTS.jobs) as JobOptionKey[];
  return Object.fromEntries(keys.filter((key) => jobs[key] !== undefined).map((key) => [key, jobs[key]]));
}
