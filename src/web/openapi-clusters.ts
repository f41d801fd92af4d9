// The OpenAPI document's part on several Proxmox clusters (SPEC 32): GET
// /clusters and its view (queue/cluster-views.ts), the cluster fields of a
// VM's view, and the listing's `cluster` filter.
import { CLUSTER_STATES } from '../queue/cluster-views.js';
import { HEALTH_REASONS } from '../job-table/health-result.schema.js';
import { LISTING_KEYS } from '../queue/vm-listing.js';
import { answer, ref, type Schema } from './openapi-parts.js';

/** The cluster a VM's view (GET /vms/{name}, the listing) names, and whether it is away now. */
export const clusterViewProperties: Record<string, Schema> = {
  cluster: { type: 'string', description: 'The Proxmox cluster the name lives in (SPEC 32; GET /v1/clusters); with proxmox.clusters set.' },
  clusterAway: {
    type: 'boolean',
    description: 'true when that cluster is away (none of its nodes answered the last health check): lastKnown.state is then Unknown, and nothing of the VM is re-created elsewhere or deleted; absent otherwise.',
  },
};

/** GET /vms's cluster. */
const clusterListParam: Schema = {
  name: 'cluster',
  in: 'query',
  required: false,
  description: 'Only the names that live in this cluster (SPEC 32; GET /v1/clusters lists them).',
  schema: { type: 'string' },
};

/** GET /vms's cluster filter, listed once the listing takes it (queue/vm-listing.ts), so the document never offers a parameter the route refuses. */
export const clusterListParams: Schema[] = (LISTING_KEYS as readonly string[]).includes('cluster') ? [clusterListParam] : [];

export const clusterSchemas: Record<string, Schema> = {
  Cluster: {
    type: 'object',
    required: ['name', 'health', 'nodes', 'images', 'freeMemoryMiB'],
    properties: {
      name: { type: 'string', description: "What a create's cluster field names; `default` for the one cluster of the single-cluster keys." },
      health: {
        type: 'string',
        enum: [...CLUSTER_STATES],
        description:
          'From the last health check: up (some node takes VMs), degraded (it answered, but no node takes VMs), away (none of its nodes answered: its VMs are Unknown, creates that name no cluster go to the others), unknown (no health result names it yet).',
      },
      nodes: {
        type: 'array',
        description: 'Its configured nodes, in config order.',
        items: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string' },
            ok: { type: 'boolean', description: 'Fit to take VMs of every image it serves; absent until a health check named the node.' },
            reasons: {
              type: 'array',
              description: 'Empty when ok; else each reason (SPEC 19) and what was found.',
              items: { type: 'object', required: ['reason', 'detail'], properties: { reason: { type: 'string', enum: [...HEALTH_REASONS] }, detail: { type: 'string' } } },
            },
          },
        },
      },
      images: { type: 'array', items: { type: 'string' }, description: 'The images a create placed in this cluster may name (GET /v1/images).' },
      freeMemoryMiB: { type: 'integer', minimum: 0, description: 'Free memory (MiB) of its nodes that take VMs, as the last health check read it; placement prefers the cluster with most.' },
      checkedAt: { type: 'string', format: 'date-time', description: 'When the last health check ran; absent before the first.' },
    },
  },
  ClusterList: { type: 'object', required: ['clusters'], properties: { clusters: { type: 'array', items: ref('Cluster'), description: 'In the configured order.' } } },
};

/** GET /clusters; `errors` are the document's own. */
export function clusterPaths(errors: Record<string, Schema>): Schema {
  return {
    '/clusters': {
      get: {
        operationId: 'listClusters',
        summary: 'The Proxmox clusters behind the service (SPEC 32): each one\'s health, nodes, images and free memory',
        responses: { '200': answer('Every configured cluster.', ref('ClusterList')), ...errors },
      },
    },
  };
}
