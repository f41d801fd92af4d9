// GET /v1/images (SPEC 27): the images a create may name, from config,
// with the last health job's finding per node. Without a readable health
// result (none yet, or unreadable) the images still answer, without health.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/types.js';
import type { LastHealth } from '../../queue/health-store.js';
import { listImages } from '../image-list.js';

export function imageRoutes(app: FastifyInstance, config: Pick<Config, 'proxmox'>, lastHealth: () => Promise<LastHealth | undefined>): void {
  app.get('/images', async () => {
    const last = await lastHealth().catch(() => undefined);
    return { images: listImages(config, last) };
  });
}
