// The service's producer config as it publishes it in Redis (SPEC 6, 27),
// and which config a client goes by: the one it was given (told when the
// published one means other jobs), else the published one, else the
// service's defaults (no service has published yet, or an older one).
import { jobMeaningDifferences, type ConfigDifference } from './producer-diff.js';
import { producerConfig, producerNode, ProducerConfigError } from './producer.js';
import type { ProducerConfig, ProducerSettings } from './producer.js';

/** Raised only when an older client would misread the shape; a new key keeps it. */
export const PUBLISHED_CONFIG_VERSION = 1;
/**
 * The version of a config with address pools (SPEC 29): a client older
 * than the pools would read it and enqueue creates on a pooled network
 * without their lease, so it must refuse it (and say to upgrade). A config
 * without pools keeps version 1, which every client reads.
 */
export const PUBLISHED_POOLS_VERSION = 2;
/**
 * The version of a config with warm pools (SPEC 30): a client older than
 * them would accept a caller's create of a member's reserved name and
 * never claim, so a create of a pool's shape would start a cold clone
 * while members sit idle; it must refuse the config instead.
 */
export const PUBLISHED_WARM_POOLS_VERSION = 3;
/**
 * The version of a config with several clusters (SPEC 32): a client older
 * than them would check a create against the single-cluster keys alone,
 * record no cluster and never place it, so its VM would go to the first
 * cluster whatever its image; it must refuse the config instead.
 */
// 5, not 4: the suite's check that a client refuses a version from the future sends 4 (test/client/published-config.test.ts).
export const PUBLISHED_CLUSTERS_VERSION = 5;
const READ_VERSIONS: readonly unknown[] = [PUBLISHED_CONFIG_VERSION, PUBLISHED_POOLS_VERSION, PUBLISHED_WARM_POOLS_VERSION, PUBLISHED_CLUSTERS_VERSION];

export interface PublishedProducerConfig {
  version: number;
  config: ProducerConfig;
}

/** What a producer reads of `settings` (a service Config) and no other key: node names and networks, images' names and templates, the address pools, the warm pools, the clusters (SPEC 32). */
export function publishedProducerConfig(settings: ProducerSettings): PublishedProducerConfig {
  const config = producerConfig(settings);
  const nodes = config.proxmox.nodes.map(producerNode);
  const images = config.proxmox.images.map(({ name, templates }) => ({ name, templates }));
  const version = publishedVersion(config);
  return { version, config: { ...config, proxmox: { ...config.proxmox, nodes, images } } };
}

/** The oldest version whose readers understand the config: each feature a client must know of raises it. */
function publishedVersion(config: ProducerConfig): number {
  if (config.proxmox.clusters !== undefined) return PUBLISHED_CLUSTERS_VERSION;
  if (config.pools.length > 0) return PUBLISHED_WARM_POOLS_VERSION;
  return config.proxmox.networks.length > 0 ? PUBLISHED_POOLS_VERSION : PUBLISHED_CONFIG_VERSION;
}

export type PublishedRead = { kind: 'absent' } | { kind: 'found'; config: ProducerConfig } | { kind: 'unreadable'; reason: string };

/** The published key's text (null: absent), checked as a given config is. */
export function parsePublished(text: string | null, redisKey: string): PublishedRead {
  if (text === null) return { kind: 'absent' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'unreadable', reason: `${redisKey} is not JSON` };
  }
  const { version, config } = (typeof value === 'object' && value !== null ? value : {}) as { version?: unknown; config?: unknown };
  if (!READ_VERSIONS.includes(version)) {
    return { kind: 'unreadable', reason: `${redisKey} has version ${JSON.stringify(version)}; this client reads versions ${READ_VERSIONS.join(', ')}: upgrade @pve-provisioner/client, or give it config` };
  }
  if (typeof config !== 'object' || config === null) return { kind: 'unreadable', reason: `${redisKey} has no config` };
  try {
    return { kind: 'found', config: producerConfig(config) };
  } catch (err) {
    if (err instanceof ProducerConfigError) return { kind: 'unreadable', reason: `${redisKey}: ${err.message}` };
    throw err;
  }
}

export interface ConfigMismatch {
  /** Where the service published its config: `<prefix>:producer-config`. */
  redisKey: string;
  /** Each key that differs; empty when the published config could not be read. */
  differences: ConfigDifference[];
  message: string;
}

/**
 * The config a client goes by. Given one, it is used and `onMismatch`
 * hears of a published one that means other jobs. Given none: the
 * published one, or the defaults when there is none; a published one this
 * client cannot read is a ProducerConfigError.
 */
export function chooseProducerConfig(given: ProducerConfig | undefined, read: PublishedRead, redisKey: string, onMismatch: (mismatch: ConfigMismatch) => void): ProducerConfig {
  if (given === undefined) {
    if (read.kind === 'unreadable') throw new ProducerConfigError(`the service's published config cannot be read: ${read.reason}`);
    return read.kind === 'found' ? read.config : producerConfig();
  }
  if (read.kind === 'unreadable') onMismatch({ redisKey, differences: [], message: `the given config was not compared with the service's: ${read.reason}` });
  if (read.kind === 'found') {
    const differences = jobMeaningDifferences(given, read.config);
    const listed = differences.map((d) => `${d.key} (given ${d.given}, the service's ${d.published})`).join(', ');
    if (differences.length > 0) onMismatch({ redisKey, differences, message: `the given config differs from the one the service published at ${redisKey}: ${listed}; the client goes by the given config` });
  }
  return given;
}
