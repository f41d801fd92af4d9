// Which cluster a create goes to (SPEC 32), decided at the accept in the
// producer library, so the HTTP API, the CLI and a backend's own client
// place alike: the cluster the create names; else the name's record's
// (a repeat, or a name deleted and created again, stays where it was);
// else, among the clusters serving its image (on its node, when named)
// that the last health did not find away, the one with most free memory
// on those nodes, then the configured order; every one away: the first
// serving one (the create waits for it). The chosen cluster's own nodes
// and images check the create. Producer-safe: no worker code.
import type { ClusterLimits, FieldError, JobLimits } from '../job-table/fields.js';
import { clusterHealth } from './cluster-health.js';
import { nodeCanProvision, type LastHealth } from './health-store.js';
import { ValidationError } from './producer-errors.js';

/** What of a validated create decides its cluster. */
export interface PlacementAsk {
  cluster?: string;
  image: string;
  node?: string;
}

export interface PlacementFacts {
  /** The cluster of the name's record, present or tombstone (its spec's, else the first); undefined: the name has none. */
  recordCluster?: string;
  /** The caller named no image: each cluster's own default image is the create's there. */
  defaultedImage: boolean;
  /** The last health result (SPEC 19), read only when the create is placed among clusters. */
  lastHealth: () => Promise<LastHealth | undefined>;
}

/** The create's cluster, and its image there (the cluster's default when the caller named none). */
export interface Placement {
  cluster: ClusterLimits;
  image: string;
}

function imageIn(cluster: ClusterLimits, ask: PlacementAsk, facts: Pick<PlacementFacts, 'defaultedImage'>): string {
  return facts.defaultedImage ? cluster.defaultImage : ask.image;
}

/** The nodes of the cluster that serve the image (the named node alone, when it does). */
function servingNodes(cluster: ClusterLimits, image: string, node: string | undefined): string[] {
  const serving = cluster.images[image] ?? [];
  return node === undefined ? serving : serving.filter((name) => name === node);
}

/** What the cluster refuses of the create, each naming its field and the cluster. */
export function clusterFieldErrors(cluster: ClusterLimits, image: string, node: string | undefined): FieldError[] {
  const serving = cluster.images[image];
  if (serving === undefined) return [{ field: 'image', message: `${image} is not an image of cluster ${cluster.name} (its images: ${Object.keys(cluster.images).join(', ') || 'none'})` }];
  if (node === undefined) return [];
  if (!cluster.nodes.includes(node)) return [{ field: 'node', message: `${node} is not a node of cluster ${cluster.name} (its nodes: ${cluster.nodes.join(', ')})` }];
  return serving.includes(node) ? [] : [{ field: 'image', message: `${image} is not served by node ${node} in cluster ${cluster.name} (served by: ${serving.join(', ') || 'no node'})` }];
}

/** A cluster of the name given, or the ValidationError naming `cluster`. */
function configured(clusters: readonly ClusterLimits[], name: string, whose: string): ClusterLimits {
  const found = clusters.find((cluster) => cluster.name === name);
  if (found !== undefined) return found;
  throw new ValidationError([{ field: 'cluster', message: `${whose} cluster ${name} is not configured (clusters: ${clusters.map((c) => c.name).join(', ')})` }]);
}

/** Checked against its own cluster: a ValidationError naming the field and the cluster. */
function checkedIn(cluster: ClusterLimits, ask: PlacementAsk, facts: PlacementFacts): Placement {
  const image = imageIn(cluster, ask, facts);
  const errors = clusterFieldErrors(cluster, image, ask.node);
  if (errors.length > 0) throw new ValidationError(errors);
  return { cluster, image };
}

/** SPEC 32: the free memory the last health read on the cluster's nodes that can take the create. */
function freeFor(nodes: ReturnType<typeof clusterHealth>[number]['nodes'], serving: readonly string[]): number {
  return nodes.filter((node) => serving.includes(node.node) && nodeCanProvision(node)).reduce((sum, node) => sum + (node.freeMemoryMiB ?? 0), 0);
}

/** Where the create goes among `clusters` (in the configured order, JobLimits.clusters); throws ValidationError naming the field. */
export async function placeCreate(clusters: readonly ClusterLimits[], ask: PlacementAsk, facts: PlacementFacts): Promise<Placement> {
  if (ask.cluster !== undefined) return checkedIn(configured(clusters, ask.cluster, 'the'), ask, facts);
  if (facts.recordCluster !== undefined) return checkedIn(configured(clusters, facts.recordCluster, "the name's record's"), ask, facts);
  const serving = clusters.filter((cluster) => servingNodes(cluster, imageIn(cluster, ask, facts), ask.node).length > 0);
  const [firstServing] = serving;
  if (firstServing === undefined) {
    const what = facts.defaultedImage ? "no cluster's default image" : `no cluster serves ${ask.image}`;
    throw new ValidationError([{ field: 'image', message: `${what}${ask.node === undefined ? '' : ` on node ${ask.node}`}: name an image (and node) a cluster has` }]);
  }
  if (serving.length === 1) return { cluster: firstServing, image: imageIn(firstServing, ask, facts) };
  const health = clusterHealth(await facts.lastHealth(), clusters);
  const ranked = serving
    .map((cluster, order) => {
      const found = health.find((h) => h.name === cluster.name);
      return { cluster, order, away: found?.state === 'away', free: freeFor(found?.nodes ?? [], servingNodes(cluster, imageIn(cluster, ask, facts), ask.node)) };
    })
    .filter((candidate) => !candidate.away)
    .sort((a, b) => b.free - a.free || a.order - b.order);
  const chosen = ranked[0]?.cluster ?? firstServing;
  return { cluster: chosen, image: imageIn(chosen, ask, facts) };
}

/** The limits a create placed in `cluster` is checked against and takes its address pool from (SPEC 29, 32): that cluster's nodes, images and networks. */
export function limitsInCluster(limits: JobLimits, cluster: ClusterLimits): JobLimits {
  return { ...limits, nodes: cluster.nodes, images: cluster.images, defaultImage: cluster.defaultImage, networks: cluster.networks ?? { pools: [], nodes: {} } };
}
