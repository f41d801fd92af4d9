// A Redis Cluster of one node on loopback, holding every slot (it names
// itself 127.0.0.1: alone, it never learns its address from a peer): the
// cheapest server that still refuses a script whose keys are in different
// slots (CROSSSLOT), for a test that only needs the Cluster's key rules,
// not failover (startOwnCluster starts six nodes for that).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redisAnswers } from '../e2e/redis-server.js';
import { ask, until } from './redis-cluster.js';
import { freePort } from './free-port.js';

export interface OneNodeCluster {
  /** `127.0.0.1:port`, as redis.clusterNodes takes it. */
  node: string;
  close(): Promise<void>;
}

export async function startOneNodeCluster(): Promise<OneNodeCluster> {
  const [port, busPort] = [await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), 'pvep-one-node-cluster-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--cluster-enabled', 'yes', '--cluster-port', String(busPort), '--cluster-announce-ip', '127.0.0.1', '--appendonly', 'no', '--save', ''];
  const child: ChildProcess = spawn('redis-server', args, { stdio: 'ignore' });
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await redisAnswers(`redis://127.0.0.1:${port}`, 10_000);
    await ask(port, (r) => r.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383'));
    await until(async () => ((await ask(port, (r) => r.call('CLUSTER', 'INFO') as Promise<string>)).includes('cluster_state:ok') ? true : undefined), 30_000, 'the one-node cluster did not say ok');
  } catch (err) {
    await close();
    throw err;
  }
  return { node: `127.0.0.1:${port}`, close };
}
