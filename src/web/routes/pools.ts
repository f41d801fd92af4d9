// GET /v1/pools (SPEC 30): each configured warm pool's shape and bounds,
// and its members idle, claimed and creating, as the client's listPools
// reads them. No pools configured (or a service without them): an empty list.
import type { FastifyInstance } from 'fastify';
import type { PoolService } from '../deps.js';

export function poolRoutes(app: FastifyInstance, pools: PoolService | undefined): void {
  app.get('/pools', async () => (pools === undefined ? { pools: [] } : pools.listPools()));
}
