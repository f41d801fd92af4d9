// A Redis Cluster of a test's own on loopback (SPEC 25): six redis-server
// processes, three masters and three replicas, on free ports, made a
// cluster by redis-cli; a node can be SIGKILLed and the cluster watched
// until a replica has taken its slots. close() kills them all.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { redisAnswers } from '../e2e/redis-server.js';
import { freePort } from './free-port.js';

const run = promisify(execFile);

/** How long a silent master stays a master: short, so a failover plays out in a test's time. */
export const CLUSTER_NODE_TIMEOUT_MS = 2000;

export interface OwnCluster {
  /** `127.0.0.1:port` of each node, as redis.clusterNodes takes them. */
  nodes: string[];
  /** The port of the master that serves the slot of this key (or hash tag). */
  masterOf(key: string): Promise<number>;
  /** SIGKILL of the node on this port. */
  kill(port: number): void;
  /** Starts a killed node again on its ports (as a supervisor would); resolves once it is a replica in sync. */
  restart(port: number, timeoutMs?: number): Promise<void>;
  /** Resolves once a live node serves the key's slot as master and the cluster says ok; the port of that master. */
  promoted(key: string, dead: number, timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

interface Node {
  port: number;
  busPort: number;
  child: ChildProcess;
}

function startNode(port: number, busPort: number, dir: string, nodeTimeoutMs: number): Node {
  const child = spawn(
    'redis-server',
    [
      '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--dbfilename', `dump-${port}.rdb`,
      '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-port', String(busPort),
      '--cluster-node-timeout', String(nodeTimeoutMs),
      // A replica always stands in for its dead master, however long it was apart.
      '--cluster-replica-validity-factor', '0',
      '--appendonly', 'no', '--save', '', '--maxmemory-policy', 'noeviction',
    ],
    { stdio: 'ignore' },
  );
  return { port, busPort, child };
}

/**
 * A node answering PING. A port freePort gave may be taken before
 * redis-server binds it (it then exits at once): started again on others.
 */
async function startAnsweringNode(dir: string, nodeTimeoutMs: number): Promise<Node> {
  for (let attempt = 1; ; attempt++) {
    const node = startNode(await freePort(), await freePort(), dir, nodeTimeoutMs);
    const exited = new Promise<string>((resolve) => node.child.once('exit', (code, signal) => resolve(`exited ${code ?? signal ?? ''}`)));
    const answered = redisAnswers(`redis://127.0.0.1:${node.port}`, 10_000).then(
      () => 'up',
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    );
    const outcome = await Promise.race([answered, exited]);
    if (outcome === 'up') return node;
    node.child.kill('SIGKILL');
    if (attempt === 3) throw new Error(`redis-server on port ${node.port}: ${outcome}`);
  }
}

export async function ask<T>(port: number, what: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await what(redis);
  } finally {
    redis.disconnect();
  }
}

/** The master port serving slot, per this node's view; undefined when none does. */
async function masterServing(port: number, slot: number): Promise<number | undefined> {
  const text = await ask(port, (r) => r.call('CLUSTER', 'NODES') as Promise<string>);
  for (const line of text.split('\n')) {
    const [, address, flags, , , , , state, ...slots] = line.split(' ');
    if (address === undefined || flags === undefined || !flags.includes('master') || flags.includes('fail') || state !== 'connected') continue;
    const serves = slots.some((range) => {
      const [from, to] = range.split('-').map(Number);
      return from !== undefined && slot >= from && slot <= (to ?? from);
    });
    if (serves) return Number(address.split('@')[0]?.split(':')[1]);
  }
  return undefined;
}

/** A master, or a replica whose link to its master is up and whose first sync is done. */
export async function replicaSynced(port: number): Promise<boolean> {
  const info = await ask(port, (r) => r.info('replication'));
  if (info.includes('role:master')) return true;
  return info.includes('master_link_status:up') && info.includes('master_sync_in_progress:0');
}

/** A replica (not a master) whose link to its master is up and whose sync is done: a restarted master once it follows. */
export async function followsInSync(port: number): Promise<boolean> {
  const info = await ask(port, (r) => r.info('replication'));
  return info.includes('role:slave') && info.includes('master_link_status:up') && info.includes('master_sync_in_progress:0');
}

async function clusterOk(port: number): Promise<boolean> {
  const info = await ask(port, (r) => r.call('CLUSTER', 'INFO') as Promise<string>).catch(() => '');
  return info.includes('cluster_state:ok');
}

/** Polls probe until it gives a value; a probe that throws counts as no value yet. */
export async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * `nodeTimeoutMs`: how long a silent node stays up in the others' view.
 * The failover tests want it short; a test that wants no failover (a
 * SIGSTOPped replica, a loaded machine's stalls of seconds) gives a long one.
 */
export async function startOwnCluster(nodeTimeoutMs = CLUSTER_NODE_TIMEOUT_MS): Promise<OwnCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'pvep-own-cluster-'));
  const nodes: Node[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(
      nodes.map(({ child }) => {
        if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        return exited;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 6; i++) nodes.push(await startAnsweringNode(dir, nodeTimeoutMs));
    const addresses = nodes.map((n) => `127.0.0.1:${n.port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '1', '--cluster-yes'], { timeout: 60_000 });
    await until(async () => ((await Promise.all(nodes.map((n) => clusterOk(n.port)))).every(Boolean) ? true : undefined), 30_000, 'the cluster did not say ok');
    // A replica that has not synced yet would take over empty.
    await until(async () => ((await Promise.all(nodes.map((n) => replicaSynced(n.port)))).every(Boolean) ? true : undefined), 30_000, 'the replicas did not sync');
  } catch (err) {
    await close();
    throw err;
  }
  const killed = new Set<number>();
  const alive = (): Node[] => nodes.filter((n) => !killed.has(n.port) && n.child.exitCode === null && n.child.signalCode === null);
  const slotOf = (key: string): Promise<number> => ask(alive()[0]?.port ?? 0, (r) => r.call('CLUSTER', 'KEYSLOT', key) as Promise<number>);
  return {
    nodes: nodes.map((n) => `127.0.0.1:${n.port}`),
    async masterOf(key) {
      const slot = await slotOf(key);
      return until(() => masterServing(alive()[0]?.port ?? 0, slot), 10_000, `no master serves slot ${slot}`);
    },
    kill(port) {
      killed.add(port);
      nodes.find((n) => n.port === port)?.child.kill('SIGKILL');
    },
    async restart(port, timeoutMs = 30_000) {
      const node = nodes.find((n) => n.port === port);
      if (node === undefined) throw new Error(`no node on port ${port}`);
      // Its nodes-<port>.conf is kept: it rejoins and follows the master that took its slots.
      node.child = startNode(node.port, node.busPort, dir, nodeTimeoutMs).child;
      killed.delete(port);
      await redisAnswers(`redis://127.0.0.1:${port}`, 10_000);
      await until(async () => ((await followsInSync(port)) ? true : undefined), timeoutMs, `node ${port} did not sync as a replica`);
    },
    async promoted(key, dead, timeoutMs = 30_000) {
      const slot = await slotOf(key);
      return until(
        async () => {
          const [first] = alive();
          if (first === undefined || !(await clusterOk(first.port))) return undefined;
          const master = await masterServing(first.port, slot);
          return master !== undefined && master !== dead ? master : undefined;
        },
        timeoutMs,
        `no replica took over slot ${slot}`,
      );
    },
    close,
  };
}
