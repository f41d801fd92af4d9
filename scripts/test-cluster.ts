// `npm run test:cluster` (SPEC 25): the whole suite with REDIS_CLUSTER_NODES
// pointing at a six-node Redis Cluster (three masters, three replicas)
// that this script starts on loopback (test/support/redis-cluster.ts) and
// kills when mocha ends. Arguments go to mocha: `npm run test:cluster --
// test/queue` runs one folder. Needs redis-server and redis-cli (Debian's
// redis-server package; scripts/test-setup.sh installs it).
import { spawn } from 'node:child_process';
import { startOwnCluster } from '../test/support/redis-cluster.js';

const cluster = await startOwnCluster();
process.stderr.write(`test:cluster: a Redis Cluster on ${cluster.nodes.join(',')}\n`);
const files = process.argv.length > 2 ? process.argv.slice(2) : ['test/**/*.test.ts'];
const mocha = spawn('npx', ['mocha', ...files], {
  stdio: 'inherit',
  env: { ...process.env, REDIS_CLUSTER_NODES: cluster.nodes.join(',') },
});
const code = await new Promise<number>((resolve) => mocha.once('exit', (exitCode, signal) => resolve(exitCode ?? (signal === null ? 1 : 128))));
await cluster.close();
process.exit(code);
