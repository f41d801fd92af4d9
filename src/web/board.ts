// Bull Board at /admin/queues (SPEC 6) with every queue, behind basic
// auth unless config turns auth off. Job data is shown with userData and
// networkConfig replaced by their size: cloud-init user-data often holds
// keys and passwords, and the board is for operators, not for payloads.
// Read-only unless http.boardWritable (SPEC 24): board-guard.ts refuses
// the changing routes whatever the UI shows.
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { guardWithBasicAuth } from './auth/basic.js';
import type { BoardUser } from './auth/credentials.js';
import type { FailedAuth } from './auth/failed-auth.js';
import { boardGuard } from './board-guard.js';
import type { RedisDownProbe } from './redis-down.js';

export const BOARD_PATH = '/admin/queues';

const PAYLOAD_FIELDS = ['userData', 'networkConfig'] as const;

/** Job data as the board shows it: bulky cloud-init payloads as their size. */
function boardJobData(data: unknown): unknown {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return data;
  const shown: Record<string, unknown> = { ...(data as Record<string, unknown>) };
  for (const field of PAYLOAD_FIELDS) {
    const value = shown[field];
    if (typeof value === 'string') shown[field] = `<${Buffer.byteLength(value, 'utf8')} bytes, not shown>`;
  }
  return shown;
}

export interface BoardOptions {
  /** Board users; undefined when http.authDisabled. */
  users: readonly BoardUser[] | undefined;
  /** http.boardWritable; honoured only with users, so an open board is never writable. */
  writable: boolean;
  redisDown: RedisDownProbe;
  /** Slows and counts wrong board credentials. */
  failures: FailedAuth;
}

export async function mountBoard(app: FastifyInstance, queues: readonly Queue[], options: BoardOptions): Promise<void> {
  const writable = options.writable && options.users !== undefined;
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(BOARD_PATH);
  const adapters = queues.map((queue) => {
    const adapter = new BullMQAdapter(queue, { displayName: queue.name, readOnlyMode: !writable });
    adapter.setFormatter('data', boardJobData);
    return adapter;
  });
  createBullBoard({
    queues: adapters,
    serverAdapter,
    options: { uiConfig: { boardTitle: 'pve-provisioner' } },
  });
  await app.register(async (scope) => {
    if (options.users !== undefined) await guardWithBasicAuth(scope, options.users, options.failures);
    scope.addHook('onRequest', boardGuard({ basePath: BOARD_PATH, writable, redisDown: options.redisDown }));
    await scope.register(serverAdapter.registerPlugin(), { prefix: BOARD_PATH });
  });
}
