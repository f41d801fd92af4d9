// `pve-provisioner health`: the last result of the scheduled health job
// (SPEC 19), as JSON on stdout. Exit 0 when every node is ok, 1 when a
// node is not or no health job has run yet (why on stderr), 2 on bad
// input or config.
import { connected, createProducerConnection, RedisUnavailableError } from '../queue/connection.js';
import { readLastHealth } from '../queue/health-store.js';
import { keyPrefixOf } from '../queue/redis-target.js';
import { loadConfigOrExplain, plainArguments } from './common.js';
import { jsonDocument, shown } from './terminal-text.js';

export async function run(args: string[]): Promise<number> {
  const refused = plainArguments('health', args);
  if (refused !== undefined) return refused;
  const config = loadConfigOrExplain('health');
  if (config === undefined) return 2;
  const redis = createProducerConnection(config.redis);
  try {
    await connected(redis);
    const last = await readLastHealth(redis, keyPrefixOf(config.redis.prefix, config.redis));
    if (last === undefined) {
      process.stderr.write('pve-provisioner health: no health result yet; is a worker running (it schedules the health job)?\n');
      return 1;
    }
    process.stdout.write(jsonDocument(last));
    const failing = last.nodes.filter((node) => !node.ok);
    if (failing.length === 0) return 0;
    const reasons = failing.map((node) => `${node.node}: ${node.reasons.map((r) => `${r.reason} (${r.detail})`).join(', ')}`);
    process.stderr.write(`pve-provisioner health: ${shown(reasons.join('; '))}\n`);
    return 1;
  } catch (err) {
    if (!(err instanceof RedisUnavailableError)) throw err;
    process.stderr.write(`pve-provisioner health: ${err.message}\n`);
    return 1;
  } finally {
    redis.disconnect();
  }
}
