// One socket write per turn of the event loop for a worker's connection
// (SPEC 21). ioredis writes every command with a write of its own; a
// worker's jobs finish together (16 replies in one read), so BullMQ's
// moveToFinished calls and the lock batch of that turn went out as up to
// 17 writes, each a system call that wakes Redis. Corked until the turn's
// check phase (setImmediate), they go as one writev. Nothing waits longer
// than the rest of the turn, and Redis still runs them in the order sent.
import { Cluster } from 'ioredis';
import type { Redis } from 'ioredis';
import type { RedisClient } from '../redis-script.js';

interface Corkable {
  cork(): void;
  uncork(): void;
}

function coalesceNode(redis: Redis): void {
  const send = redis.sendCommand.bind(redis);
  let corked: Corkable | undefined;
  const uncork = (): void => {
    const stream = corked;
    corked = undefined;
    stream?.uncork();
  };
  redis.sendCommand = (...args: Parameters<Redis['sendCommand']>) => {
    // Undefined before the first connect; a stream replaced by a reconnect
    // is uncorked all the same (end() flushes a corked stream too).
    const stream = redis.stream as Corkable | undefined;
    if (corked === undefined && stream !== undefined) {
      corked = stream;
      stream.cork();
      setImmediate(uncork);
    }
    return send(...args);
  };
}

/** Coalesces the writes of one turn on this connection; on a Cluster, on each node's connection as it is made. */
export function coalesceWrites(client: RedisClient): RedisClient {
  if (client instanceof Cluster) client.on('+node', (node: Redis) => coalesceNode(node));
  else coalesceNode(client);
  return client;
}
