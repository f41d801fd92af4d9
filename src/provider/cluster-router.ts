// Several Proxmox clusters behind one Provider (SPEC 32): each operation
// goes to the provider of its context's cluster (ctx.cluster, absent: the
// first cluster); health asks every cluster at once, so the one
// last-health result holds every cluster's nodes, and a cluster whose
// check fails whole still shows its nodes, Unreachable, so it reads away.
import type { ClusterConfig } from '../config/types.js';
import { imagesOf } from '../config/images.js';
import { permanent, throwIfAborted } from './errors.js';
import { templateFor } from './template-ref.js';
import type { NodeHealth, OperationContext, Provider } from './types.js';

/** What the router knows of a cluster besides its provider: the nodes (and their images) its failed check reports. */
export type RoutedCluster = Pick<ClusterConfig, 'name' | 'nodes' | 'images' | 'defaultImage'>;

/** A cluster's configured nodes, each Unreachable for the reason its health check failed whole. */
export function unreachableNodes(cluster: RoutedCluster, err: unknown): NodeHealth[] {
  const detail = `the health check of cluster ${cluster.name} failed: ${err instanceof Error ? err.message : String(err)}`;
  const reasons: NodeHealth['reasons'] = [{ reason: 'Unreachable', detail }];
  const images = imagesOf(cluster);
  return cluster.nodes.map((node) => ({
    node: node.name,
    cluster: cluster.name,
    ok: false,
    reasons,
    images: images.flatMap((image) => (templateFor(image, node) === undefined ? [] : [{ image: image.name, ok: false, reasons }])),
  }));
}

/**
 * The provider of several clusters: `byCluster` in the configured order,
 * `first` the cluster of a context that names none. A context naming a
 * cluster that is not among them fails Permanent, naming it. `clusters`
 * gives each cluster's nodes for its Unreachable entries; a cluster it
 * leaves out reports none when its check fails whole.
 */
export function clusterRoutedProvider(byCluster: ReadonlyMap<string, Provider>, first: string, clusters: readonly RoutedCluster[] = []): Provider {
  const route = (ctx: OperationContext): Provider => {
    const name = ctx.cluster ?? first;
    const provider = byCluster.get(name);
    if (provider === undefined) throw permanent(`cluster "${name}" is not a configured cluster (configured: ${[...byCluster.keys()].join(', ')})`);
    return provider;
  };
  const healthOf = async (name: string, provider: Provider, ctx: OperationContext): Promise<NodeHealth[]> => {
    try {
      return (await provider.health(ctx)).map((node) => ({ ...node, cluster: name }));
    } catch (err) {
      throwIfAborted(ctx.signal);
      const cluster = clusters.find((c) => c.name === name);
      ctx.logger?.warn({ cluster: name, err }, `the health check of cluster ${name} failed; its nodes are reported Unreachable`);
      return cluster === undefined ? [] : unreachableNodes(cluster, err);
    }
  };
  return {
    get: async (ref, ctx) => route(ctx).get(ref, ctx),
    findByName: async (name, ctx) => route(ctx).findByName(name, ctx),
    findByNames: async (names, ctx) => route(ctx).findByNames(names, ctx),
    listByTag: async (ctx) => route(ctx).listByTag(ctx),
    listTaggedOrNamed: async (names, ctx, known) => route(ctx).listTaggedOrNamed(names, ctx, known),
    listSeeds: async (ctx) => route(ctx).listSeeds(ctx),
    listRecordedSeeds: async (ctx) => route(ctx).listRecordedSeeds(ctx),
    deleteSeed: async (seed, ctx) => route(ctx).deleteSeed(seed, ctx),
    create: async (spec, ctx) => route(ctx).create(spec, ctx),
    claim: async (request, ctx) => route(ctx).claim(request, ctx),
    delete: async (request, ctx) => route(ctx).delete(request, ctx),
    stop: async (request, ctx) => route(ctx).stop(request, ctx),
    async health(ctx) {
      const each = await Promise.all([...byCluster].map(([name, provider]) => healthOf(name, provider, ctx)));
      return each.flat();
    },
  };
}
