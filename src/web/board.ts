// Bull Board at /admin/queues (SPEC 6) with every queue, behind basic
// auth unless config turns auth off. Job data is shown with userData and
// networkConfig replaced by their size: cloud-init user-data often holds
// keys and passwords, and the board is for operators, not for payloads.
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { guardWithBasicAuth } from './auth/basic.js';
import type { BoardUser } from './auth/credentials.js';

export const BOARD_PATH = '/admin/queues';

const PAYLOAD_FIELDS = ['userData', 'networkConfig'] as const;

/** Job data as the board shows it: bulky cloud-init payloads as their size. */
export function boardJobData(data: unknown): unknown {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return data;
  const shown: Record<string, unknown> = { ...(data as Record<string, unknown>) };
  for (const field of PAYLOAD_FIELDS) {
    const value = shown[field];
    if (typeof value === 'string') shown[field] = `<${Buffer.byteLength(value, 'utf8')} bytes, not shown>`;
  }
  return shown;
}

export async function mountBoard(app: FastifyInstance, queues: readonly Queue[], users: readonly BoardUser[] | undefined): Promise<void> {
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(BOARD_PATH);
  const adapters = queues.map((queue) => {
    const adapter = new BullMQAdapter(queue, { displayName: queue.name });
    adapter.setFormatter('data', boardJobData);
    return adapter;
  });
  createBullBoard({
    queues: adapters,
    serverAdapter,
    options: { uiConfig: { boardTitle: 'pve-provisioner' } },
  });
  await app.register(async (scope) => {
    if (users !== undefined) await guardWithBasicAuth(scope, users);
    await scope.register(serverAdapter.registerPlugin(), { prefix: BOARD_PATH });
  });
}
