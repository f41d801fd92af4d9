// Loads the configuration of SPEC 7: schema defaults, then
// config/default.json, then the file named by PVE_PROVISIONER_CONFIG, then
// environment variables (which win), then overrides given by code.
import convict from 'convict';
import type { SchemaObj } from 'convict';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { registerFormats } from './formats.js';
import { imageProblems, readinessProblems } from './images.js';
import { leaseProblems } from './leases.js';
import { withNetworkDefaults } from './network-pools.js';
import { poolContextProblems, withPoolDefaults, type PoolInput } from './pools.js';
import { schema } from './schema.js';
import type { Config } from './types.js';
import { clusterProblems, clustersOf, configForCluster, resolveCluster, simulatedClusters, type ClusterInput } from './clusters.js';

export type { Config } from './types.js';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

registerFormats();

/** `proxmox.vmidRange.min` becomes `PROXMOX_VMID_RANGE_MIN`. */
export function envNameOf(path: string): string {
  return path
    .split('.')
    .map((part) => part.replace(/([a-z0-9])([A-Z])/g, '$1_$2'))
    .join('_')
    .toUpperCase();
}

function isLeaf(node: object): node is SchemaObj {
  return 'default' in node && 'doc' in node;
}

/** Gives every leaf of the schema its environment variable. */
function withEnvNames(node: Record<string, unknown>, prefix: string): void {
  for (const [key, child] of Object.entries(node)) {
    if (typeof child !== 'object' || child === null) continue;
    const path = prefix ? `${prefix}.${key}` : key;
    if (isLeaf(child)) child.env = envNameOf(path);
    else withEnvNames(child as Record<string, unknown>, path);
  }
}

withEnvNames(schema, '');

/** Every documented key: path, doc, default and environment variable. */
export function describeKeys(): { path: string; doc: string; default: unknown; env: string }[] {
  const out: { path: string; doc: string; default: unknown; env: string }[] = [];
  const walk = (node: Record<string, unknown>, prefix: string): void => {
    for (const [key, child] of Object.entries(node)) {
      if (typeof child !== 'object' || child === null) continue;
      const path = prefix ? `${prefix}.${key}` : key;
      if (isLeaf(child)) out.push({ path, doc: child.doc ?? '', default: child.default, env: child.env ?? envNameOf(path) });
      else walk(child as Record<string, unknown>, path);
    }
  };
  walk(schema, '');
  return out;
}

// This file runs from src/config/ under tsx and from dist/src/config/ once built.
const here = dirname(fileURLToPath(import.meta.url));
const packageRoot = [join(here, '..', '..'), join(here, '..', '..', '..')].find((dir) => existsSync(join(dir, 'config', 'default.json'))) ?? process.cwd();

export interface LoadOptions {
  /** Environment to read; process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** Values set by code, applied last (tests, CLI flags). */
  overrides?: Record<string, unknown>;
}

/**
 * convict ends a refusal with `value was <the value>`: a URL's user and
 * password (redis.url, proxmox.nodes[i].apiUrl, webhooks.url) must not
 * reach the terminal or a log with it (SPEC 22).
 */
function withoutUrlCredentials(message: string): string {
  return message.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"]*@/gi, '$1***@');
}

export function loadConfig(options: LoadOptions = {}): Config {
  const env = options.env ?? process.env;
  const config = convict(schema, { env, args: [] });
  try {
    const defaultFile = join(packageRoot, 'config', 'default.json');
    if (existsSync(defaultFile)) config.loadFile(defaultFile);
    const extra = env.PVE_PROVISIONER_CONFIG;
    if (extra) {
      if (!existsSync(extra)) throw new Error(`PVE_PROVISIONER_CONFIG names ${extra}, which does not exist`);
      config.loadFile(extra);
    }
    if (options.overrides) config.load(options.overrides);
    config.validate({ allowed: 'strict' });
  } catch (err) {
    throw new ConfigError(`invalid configuration: ${withoutUrlCredentials((err as Error).message)}`);
  }
  const raw = config.getProperties();
  // SPEC 32: each cluster's entry filled from the single-cluster keys (or SIM_CLUSTERS' simulated ones).
  const inputs = (raw.proxmox.clusters ?? []).length > 0 ? (raw.proxmox.clusters as ClusterInput[]) : simulatedClusters(raw);
  const loaded: Config = { ...raw, proxmox: { ...raw.proxmox, clusters: inputs.map((input) => resolveCluster(input, raw.proxmox)) } };
  crossCheck(loaded);
  // Filled here, not by the format's coerce: convict coerces only text, and a file or code gives objects.
  const clusters = clustersOf(loaded);
  const pools = (loaded.pools as PoolInput[]).map((pool) => withPoolDefaults(pool, configForCluster(loaded, clusters.find((c) => c.name === pool.cluster) ?? clusters[0]!).proxmox));
  const poolProblems = [...unknownPoolClusters(pools, clusters.map((c) => c.name)), ...clusters.flatMap((cluster) => poolContextProblems(pools.filter((pool) => (pool.cluster ?? clusters[0]?.name) === cluster.name), configForCluster(loaded, cluster).proxmox, true))];
  if (poolProblems.length > 0) throw new ConfigError(`invalid configuration: ${[...new Set(poolProblems)].join('; ')}`);
  return { ...loaded, pools, proxmox: { ...loaded.proxmox, networks: loaded.proxmox.networks.map(withNetworkDefaults) } };
}

/** SPEC 32: a pool's cluster must be a configured one. */
function unknownPoolClusters(pools: readonly { name: string; cluster?: string }[], names: readonly string[]): string[] {
  return pools.flatMap((pool, i) => (pool.cluster === undefined || names.includes(pool.cluster) ? [] : [`pools[${i}].cluster "${pool.cluster}" is not a configured cluster (${names.join(', ')})`]));
}

function crossCheck(config: Config): void {
  const { vmidRange, defaults, limits } = config.proxmox;
  const fail = (message: string): never => {
    throw new ConfigError(`invalid configuration: ${message}`);
  };
  if (vmidRange.min > vmidRange.max) {
    fail(`proxmox.vmidRange: min (${vmidRange.min}) is above max (${vmidRange.max}); min must be at most max`);
  }
  const { clusterNodes, sentinel } = config.redis;
  if (clusterNodes.length > 0 && sentinel.nodes.length > 0) {
    fail('redis.clusterNodes and redis.sentinel.nodes are both set; a Redis is either a Cluster or behind Sentinel: set one of them');
  }
  if (sentinel.nodes.length > 0 && sentinel.name === '') fail('redis.sentinel.name (REDIS_SENTINEL_NAME) is empty; with redis.sentinel.nodes it must name the master the sentinels monitor');
  if (sentinel.nodes.length === 0 && sentinel.name !== '') fail(`redis.sentinel.name is "${sentinel.name}" but redis.sentinel.nodes (REDIS_SENTINEL_NODES) is empty; list the sentinels as host:port`);
  if (defaults.cores > limits.maxCores) fail(`proxmox.defaults.cores (${defaults.cores}) is above proxmox.limits.maxCores (${limits.maxCores})`);
  if (defaults.memoryMiB > limits.maxMemoryMiB) fail(`proxmox.defaults.memoryMiB (${defaults.memoryMiB}) is above proxmox.limits.maxMemoryMiB (${limits.maxMemoryMiB})`);
  if (defaults.diskGiB > limits.maxDiskGiB) fail(`proxmox.defaults.diskGiB (${defaults.diskGiB}) is above proxmox.limits.maxDiskGiB (${limits.maxDiskGiB})`);
  const leases = leaseProblems(config.leases);
  if (leases.length > 0) fail(leases.join('; '));
  // Each cluster's images against its own nodes (SPEC 32); the one-cluster form's view is the config itself.
  const images = clustersOf(config).flatMap((cluster) => {
    const view = configForCluster(config, cluster);
    const named = (problem: string): string => (view.proxmox.clusterName === undefined ? problem : `cluster ${cluster.name}: ${problem}`);
    return [...imageProblems(view.proxmox), ...readinessProblems(view)].map(named);
  });
  const all = [...new Set(images), ...clusterProblems(clustersOf(config))];
  if (all.length > 0) fail(all.join('; '));
}
