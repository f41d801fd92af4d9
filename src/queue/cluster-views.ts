// What GET /v1/clusters, the producer library's listClusters and
// `pve-provisioner clusters` answer (SPEC 32): each configured cluster, in
// the configured order, with its nodes and images from config and its
// state, its nodes' health and free memory from the last health result
// (queue/cluster-health.ts, the same reading /readyz, metrics and
// placement make). The one-cluster form is one cluster, `default`.
import { DEFAULT_CLUSTER } from '../config/clusters.js';
import type { HealthReason } from '../job-table/health-result.schema.js';
import type { JobLimits } from '../job-table/fields.js';
import { clusterHealth, type ClusterState } from './cluster-health.js';
import type { LastHealth } from './health-store.js';

/** Every state a cluster's view may show, in the order of GET /v1/clusters' document. */
export const CLUSTER_STATES = ['up', 'degraded', 'away', 'unknown'] as const satisfies readonly ClusterState[];

/** What a cluster is made of in config: its nodes' names and the images it serves. */
export interface ClusterShape {
  name: string;
  nodes: readonly string[];
  images: readonly string[];
}

export interface ClusterNodeView {
  name: string;
  /** Fit to take VMs of every image it serves, as the last health check found; absent until a check named the node. */
  ok?: boolean;
  /** Why it is not fit; absent until a check named the node. */
  reasons?: { reason: HealthReason; detail: string }[];
}

export interface ClusterView {
  name: string;
  /** up: some node takes VMs; degraded: it answered, no node takes VMs; away: no node answered (its VMs are Unknown); unknown: no health result names it yet. */
  health: ClusterState;
  /** Its configured nodes, in config order. */
  nodes: ClusterNodeView[];
  /** The images a create placed in it may name. */
  images: string[];
  /** Free memory (MiB) of its nodes that take VMs, as the last check read it: placement prefers the cluster with most. */
  freeMemoryMiB: number;
  /** When the last health result was taken; absent with none. */
  checkedAt?: string;
}

/**
 * Each cluster of the limits a producer checks creates against: their
 * `clusters` in the several-clusters form, else the one cluster `default`
 * of the top-level nodes and images.
 */
export function clusterShapesOfLimits(limits: Pick<JobLimits, 'clusters' | 'nodes' | 'images'>): ClusterShape[] {
  const clusters = limits.clusters ?? [{ name: DEFAULT_CLUSTER, nodes: limits.nodes, images: limits.images }];
  return clusters.map(({ name, nodes, images }) => ({ name, nodes, images: Object.keys(images) }));
}

export function clusterViews(shapes: readonly ClusterShape[], last: LastHealth | undefined): ClusterView[] {
  const states = clusterHealth(last, shapes);
  return shapes.map((shape, i) => {
    const state = states[i];
    const nodes = shape.nodes.map((name): ClusterNodeView => {
      const found = state?.nodes.find((node) => node.node === name);
      return found === undefined ? { name } : { name, ok: found.ok, reasons: found.reasons };
    });
    return {
      name: shape.name,
      health: state?.state ?? 'unknown',
      nodes,
      images: [...shape.images],
      freeMemoryMiB: state?.freeMemoryMiB ?? 0,
      ...(last === undefined ? {} : { checkedAt: last.at }),
    };
  });
}
