// Running Lua in Redis: one script by its SHA1, and many calls of a batch
// script as one round trip. Redis primitives only, so every layer with
// scripts of its own (the registry and name locks in src/queue/, the
// request budget in src/proxmox/) builds on it.
import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/** A connection to one Redis (alone or behind Sentinel) or to a Redis Cluster (SPEC 25). */
export type RedisClient = Redis | Cluster;

/**
 * A Lua script run by its SHA1 (EVALSHA), so a call sends neither the
 * source nor has Redis hash it again. When Redis does not know the script
 * (a restart, SCRIPT FLUSH), the call sends the source once (EVAL).
 */
export class LuaScript {
  readonly sha: string;

  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: RedisClient, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

interface BatchedCall {
  keys: readonly string[];
  args: readonly (string | number)[];
  resolve(answer: unknown): void;
  reject(err: unknown): void;
}

/**
 * Calls of a batch script (one whose KEYS and ARGV are those of many calls
 * one after another, answering one reply each, as JOB_LOCK_OPS does) made
 * in the same tick of the event loop go to Redis as one EVALSHA. Each call
 * runs atomically, as separate scripts back to back would. A worker's jobs
 * run together, so this turns their several round trips per tick into
 * one. An answer {'error', message} rejects only its own call; a failed
 * EVALSHA rejects them all.
 */
export class ScriptBatch {
  private calls: BatchedCall[] = [];

  constructor(
    private readonly redis: RedisClient,
    private readonly script: LuaScript,
  ) {}

  call(keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (this.calls.length === 0) process.nextTick(() => this.flush());
      this.calls.push({ keys, args, resolve, reject });
    });
  }

  private flush(): void {
    const calls = this.calls;
    this.calls = [];
    const answered = (answers: unknown): void => {
      calls.forEach((call, i) => {
        const answer: unknown = Array.isArray(answers) ? answers[i] : undefined;
        if (answer === undefined) call.reject(new Error(`no answer from the batch script for call ${i + 1} of ${calls.length}`));
        else if (Array.isArray(answer) && answer[0] === 'error') call.reject(new Error(String(answer[1])));
        else call.resolve(answer);
      });
    };
    this.script.run(this.redis, calls.flatMap((c) => c.keys), calls.flatMap((c) => c.args)).then(answered, (err: unknown) => {
      for (const call of calls) call.reject(err);
    });
  }
}
