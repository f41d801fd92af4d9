// Where two producer configs disagree on what a job means (SPEC 6, 27):
// the node names, the defaults and limits key by key, the images (names
// and the nodes serving each), the default image, the leases (SPEC 31),
// the nodes' networks and the address pools (SPEC 29), the warm pools (SPEC 30), the clusters (SPEC 32). Job options and the
// tombstone time change how a job is kept, not what it is, and are not compared.
import { isDeepStrictEqual } from 'node:util';
import { defaultImageOf } from './images.js';
import { shapeFingerprint } from '../pools/fingerprint.js';
import type { ProducerConfig } from './producer.js';

export interface ConfigDifference {
  /** `proxmox.limits.maxCores`, `proxmox.nodes`, ... */
  key: string;
  /** Each side's value as JSON. */
  given: string;
  published: string;
}

type Proxmox = ProducerConfig['proxmox'];

function servedBy(images: Proxmox['images']): { name: string; nodes: string[] }[] {
  return images.map(({ name, templates }) => ({ name, nodes: Object.keys(templates).sort() })).sort((a, b) => a.name.localeCompare(b.name));
}

/** Each node's network (SPEC 29): where a create that names no bridge lands, so which pool it takes from. */
function nodeNetworks(nodes: Proxmox['nodes']): string[] {
  return nodes.map(({ name, bridge, vlanTag }) => `${name}: ${bridge ?? 'the template\'s bridge'}${vlanTag === undefined ? '' : ` VLAN ${vlanTag}`}`).sort();
}

function poolsByName(networks: Proxmox['networks']): Proxmox['networks'] {
  return [...networks].sort((a, b) => a.name.localeCompare(b.name));
}

/** Each warm pool's name and shape (SPEC 30): what decides a create's claim; minIdle and the like are the workers' business. */
function poolShapes(pools: ProducerConfig['pools']): string[] {
  return pools.map((pool) => `${pool.name}: ${shapeFingerprint(pool)}${pool.cluster === undefined ? '' : ` in ${pool.cluster}`}`).sort();
}

/** Each cluster (SPEC 32) as what decides a create placed there: its nodes and their networks, the images each serves, its default image, its address pools. */
function clusterMeanings(clusters: Proxmox['clusters']): unknown[] {
  return (clusters ?? []).map((cluster) => ({
    name: cluster.name,
    nodes: nodeNetworks(cluster.nodes),
    images: servedBy(cluster.images),
    defaultImage: defaultImageOf(cluster),
    networks: poolsByName(cluster.networks),
  }));
}

function byKey(group: 'defaults' | 'limits', given: Proxmox, published: Proxmox): [string, unknown, unknown][] {
  return Object.entries(published[group]).map(([key, value]) => [`proxmox.${group}.${key}`, (given[group] as Record<string, number>)[key], value]);
}

export function jobMeaningDifferences(given: ProducerConfig, published: ProducerConfig): ConfigDifference[] {
  const [g, p] = [given.proxmox, published.proxmox];
  const pairs: [string, unknown, unknown][] = [
    ['proxmox.nodes', g.nodes.map((n) => n.name).sort(), p.nodes.map((n) => n.name).sort()],
    ...byKey('defaults', g, p),
    ...byKey('limits', g, p),
    ['proxmox.images', servedBy(g.images), servedBy(p.images)],
    ['proxmox.defaultImage', defaultImageOf(g), defaultImageOf(p)],
    ['proxmox.nodes[].bridge/vlanTag', nodeNetworks(g.nodes), nodeNetworks(p.nodes)],
    ['proxmox.networks', poolsByName(g.networks), poolsByName(p.networks)],
    ['proxmox.clusters', clusterMeanings(g.clusters), clusterMeanings(p.clusters)],
    ['pools', poolShapes(given.pools), poolShapes(published.pools)],
    ...Object.entries(published.leases).map(([key, value]): [string, unknown, unknown] => [`leases.${key}`, (given.leases as Record<string, unknown>)[key], value]),
  ];
  return pairs.filter(([, a, b]) => !isDeepStrictEqual(a, b)).map(([key, a, b]) => ({ key, given: JSON.stringify(a), published: JSON.stringify(b) }));
}
