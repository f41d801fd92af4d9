// proxmox.nodes[i].apiUrl (SPEC 28): the worker's client sends a node's
// calls, uploads first, to that node's own pveproxy, and everything else to
// proxmox.url. Two small local servers stand for the two pveproxies.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { proxmoxApiFromConfig, workerProxmoxApi } from '../../src/worker/proxmox-api.js';
import { deletePrefix, newRedis, REDIS_CLUSTER_NODES, REDIS_URL, uniquePrefix } from '../support/redis.js';

interface Pveproxy {
  url: string;
  /** `METHOD path` of every request it received. */
  seen: string[];
  close(): Promise<void>;
}

async function pveproxy(): Promise<Pveproxy> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method ?? ''} ${(req.url ?? '').replace(/\?.*$/, '')}`);
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: req.url?.includes('/upload') ? 'UPID:pv1-2:0:0:0:imgcopy::root@pam!t:' : [] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('proxmox.nodes[i].apiUrl routes that node\'s calls to its own pveproxy (SPEC 28)', () => {
  let dir: string;
  let main: Pveproxy;
  let second: Pveproxy;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'api-url-'));
    main = await pveproxy();
    second = await pveproxy();
  });
  afterEach(async () => {
    await main.close();
    await second.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function configFor(extra: Record<string, unknown> = {}) {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'root@pam!t=00000000-0000-0000-0000-000000000000\n', { mode: 0o600 });
    return loadConfig({
      env: {},
      overrides: {
        ...extra,
        proxmox: {
          url: main.url,
          tokenFile,
          nodes: [
            { name: 'pv1-1', template: 9001, isoStorage: 'proxy-seeds' },
            { name: 'pv1-2', template: 9002, isoStorage: 'proxy-seeds', apiUrl: second.url },
          ],
        },
      },
    });
  }

  const client = () => proxmoxApiFromConfig(configFor(), main.url);

  it("sends pv1-2's upload, storage and task calls to pv1-2's apiUrl, pv1-1's and the cluster-wide ones to proxmox.url", async () => {
    const api = client();
    const iso = { size: 4, open: () => Readable.from([Buffer.from('seed')]) };
    await api.upload('pv1-2', 'proxy-seeds', 'a-seed.iso', iso);
    await api.storages('pv1-2');
    await api.taskStatus('pv1-2', 'UPID:pv1-2:0:0:0:imgcopy::root@pam!t:');
    await api.upload('pv1-1', 'proxy-seeds', 'b-seed.iso', iso);
    await api.version();
    await api.clusterResources('vm');
    expect(second.seen).to.deep.equal([
      'POST /api2/json/nodes/pv1-2/storage/proxy-seeds/upload',
      'GET /api2/json/nodes/pv1-2/storage',
      `GET /api2/json/nodes/pv1-2/tasks/${encodeURIComponent('UPID:pv1-2:0:0:0:imgcopy::root@pam!t:')}/status`,
    ]);
    expect(main.seen).to.deep.equal(['POST /api2/json/nodes/pv1-1/storage/proxy-seeds/upload', 'GET /api2/json/version', 'GET /api2/json/cluster/resources']);
  });

  it('a cluster-wide call with `via` goes to that node\'s apiUrl (health\'s check), and to proxmox.url for a node without one', async () => {
    const api = client();
    await api.nodes({ via: 'pv1-2' });
    await api.nodes({ via: 'pv1-1' });
    expect(second.seen).to.deep.equal(['GET /api2/json/nodes']);
    expect(main.seen).to.deep.equal(['GET /api2/json/nodes']);
  });

  it('the request budget and the call metrics see every call once, whichever URL it goes to (SPEC 26, 28)', async () => {
    const prefix = uniquePrefix('api-url-budget');
    const redis = newRedis();
    const metrics = createMetrics();
    let taken = 0;
    let observed = 0;
    const budgetTaken = metrics.budgetTaken.bind(metrics);
    const proxmoxCall = metrics.proxmoxCall.bind(metrics);
    metrics.budgetTaken = (seconds, held) => {
      taken += 1;
      budgetTaken(seconds, held);
    };
    metrics.proxmoxCall = (method, status, seconds) => {
      observed += 1;
      proxmoxCall(method, status, seconds);
    };
    const config = configFor({ redis: { url: REDIS_URL, prefix, clusterNodes: REDIS_CLUSTER_NODES } });
    expect(config.proxmox.maxRequestsPerSecond).to.be.above(0);
    const worker = workerProxmoxApi(config, main.url, silentLogger(), metrics);
    try {
      await worker.api.storages('pv1-2');
      await worker.api.nodes({ via: 'pv1-2' });
      await worker.api.storages('pv1-1');
      await worker.api.nodes();
      await worker.api.taskStatus('pv1-2', 'UPID:pv1-2:0:0:0:imgcopy::root@pam!t:');
      expect([second.seen.length, main.seen.length]).to.deep.equal([3, 2]);
      expect({ taken, observed }).to.deep.equal({ taken: 5, observed: 5 });
    } finally {
      await worker.close();
      await deletePrefix(redis, prefix);
      redis.disconnect();
    }
  });
});
