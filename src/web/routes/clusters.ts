// GET /v1/clusters (SPEC 32): each configured Proxmox cluster with its
// state, nodes, images and free memory, from config and the last health
// result. Any token may read it (a tenant's too), as GET /v1/images.
// Without a readable health result the clusters still answer, as unknown.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/types.js';
import { clusterViews } from '../../queue/cluster-views.js';
import type { LastHealth } from '../../queue/health-store.js';
import { clusterShapesOfConfig } from '../cluster-shapes.js';

export function clusterRoutes(app: FastifyInstance, config: Pick<Config, 'proxmox'>, lastHealth: () => Promise<LastHealth | undefined>): void {
  const shapes = clusterShapesOfConfig(config);
  app.get('/clusters', async () => {
    const last = await lastHealth().catch(() => undefined);
    return { clusters: clusterViews(shapes, last) };
  });
}
