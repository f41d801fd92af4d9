// SPEC 28 over HTTP: the worker's Proxmox client, built from the config
// as a worker builds it, against a local server that stands in for two
// nodes' pvedaemons and counts the protected requests in flight at each.
// Agent calls are answered as while the guest agent is not up: late, with
// `QEMU guest agent is not running`. Two clients on one Redis prefix are
// two worker processes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { keys } from '../../src/redis-keys.js';
import { createHttpApi } from '../../src/proxmox/http-api.js';
import { workerProxmoxApi } from '../../src/worker/proxmox-api.js';
import type { WorkerProxmoxApi } from '../../src/worker/proxmox-api.js';
import { scaledByLoad } from '../support/machine.js';
import { startRawServer } from '../support/replay-server.js';
import type { RawServer } from '../support/replay-server.js';
import { REDIS_URL, uniquePrefix } from '../support/redis.js';

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const AGENT_PATH = /^\/api2\/json\/nodes\/([^/]+)\/qemu\/\d+\/agent\/network-get-interfaces$/;
const CONFIG_PATH = /^\/api2\/json\/nodes\/([^/]+)\/qemu\/\d+\/config$/;

/** A stand-in for the nodes: agent calls take `agentMs` each; the peak of agent calls in flight per node. */
function nodesServer(agentMs: number): { listener: (req: IncomingMessage, res: ServerResponse) => void; peak: Map<string, number>; configAnswered: string[] } {
  const inFlight = new Map<string, number>();
  const peak = new Map<string, number>();
  const configAnswered: string[] = [];
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const agent = AGENT_PATH.exec(path);
    if (agent?.[1] !== undefined) {
      const node = agent[1];
      inFlight.set(node, (inFlight.get(node) ?? 0) + 1);
      peak.set(node, Math.max(peak.get(node) ?? 0, inFlight.get(node) ?? 0));
      setTimeout(() => {
        inFlight.set(node, (inFlight.get(node) ?? 1) - 1);
        res.writeHead(500, 'QEMU guest agent is not running', { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: null, message: 'QEMU guest agent is not running\n' }));
      }, agentMs);
      return;
    }
    if (CONFIG_PATH.test(path)) {
      configAnswered.push(path);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { name: 'vm' } }));
      return;
    }
    res.writeHead(501, 'not here');
    res.end('{"data":null}');
  };
  return { listener, peak, configAnswered };
}

describe('pvedaemon slots over HTTP: the worker client keeps protected calls per node (SPEC 28)', function () {
  this.timeout(60_000);
  let dir: string;
  let tokenFile: string;
  let prefix: string;
  let server: RawServer | undefined;
  const clients: WorkerProxmoxApi[] = [];

  function client(url: string, env: Record<string, string> = {}): WorkerProxmoxApi {
    const config = loadConfig({ env: { PROXMOX_TOKEN_FILE: tokenFile, REDIS_URL, REDIS_PREFIX: prefix, ...env } });
    const made = workerProxmoxApi(config, url, silentLogger(), createMetrics());
    clients.push(made);
    return made;
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'daemon-slots-'));
    tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'root@pam!t=00000000-0000-0000-0000-000000000000\n', { mode: 0o600 });
    prefix = uniquePrefix('daemon-http');
  });

  afterEach(async () => {
    for (const made of clients.splice(0)) await made.close();
    await server?.close();
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
    const admin = new Redis(REDIS_URL);
    await admin.del(keys.daemonSlots(prefix, 'pve1'), keys.daemonSlots(prefix, 'pve2'), `{${prefix}}:proxmox-budget:pace`, `{${prefix}}:proxmox-budget:ceiling`);
    admin.disconnect();
  });

  async function agentWave(apis: WorkerProxmoxApi[], perNode: number): Promise<string[]> {
    const calls = apis.flatMap((made) =>
      ['pve1', 'pve2'].flatMap((node) => Array.from({ length: perNode }, (_, i) => made.api.agentInterfaces(node, 100 + i).then(() => 'answered', (err: unknown) => (err as Error).message))),
    );
    return Promise.all(calls);
  }

  it('never has more than 2 agent calls in flight at one node from two worker processes, with the default proxmox.daemonSlotsPerNode', async () => {
    const nodes = nodesServer(150);
    server = await startRawServer(nodes.listener);
    const url = server.url;
    const answers = await agentWave([client(url), client(url)], 6);
    expect(answers).to.have.length(24);
    expect(answers.every((answer) => answer.includes('QEMU guest agent is not running'))).to.equal(true);
    expect(nodes.peak.get('pve1')).to.equal(2);
    expect(nodes.peak.get('pve2')).to.equal(2);
  });

  it('sends them all at once with proxmox.daemonSlotsPerNode 0', async () => {
    const nodes = nodesServer(300);
    server = await startRawServer(nodes.listener);
    const url = server.url;
    const env = { PROXMOX_DAEMON_SLOTS_PER_NODE: '0', PROXMOX_MAX_REQUESTS_PER_SECOND: '0' };
    await agentWave([client(url, env), client(url, env)], 4);
    expect(nodes.peak.get('pve1')).to.be.greaterThan(2);
    expect(nodes.peak.get('pve2')).to.be.greaterThan(2);
  });

  it('lets a call that runs in pveproxy (a config read) through while the node\'s slots are taken', async () => {
    const nodes = nodesServer(scaledByLoad(1_000));
    server = await startRawServer(nodes.listener);
    const made = client(server.url, { PROXMOX_MAX_REQUESTS_PER_SECOND: '0' });
    let agentsAnswered = 0;
    const agents = [101, 102, 103].map((vmid) => made.api.agentInterfaces('pve1', vmid).catch(() => (agentsAnswered += 1)));
    while (nodes.peak.get('pve1') !== 2) await pause(10);
    await made.api.getConfig('pve1', 101);
    // Answered while the first two agent calls still hold both slots.
    expect(agentsAnswered).to.equal(0);
    expect(nodes.configAnswered).to.have.length(1);
    await Promise.all(agents);
    expect(nodes.peak.get('pve1')).to.equal(2);
  });

  it('the client tells when a request leaves (onSend), once, before Proxmox sees it: a given-up call\'s worst case counts from there', async () => {
    const seen: string[] = [];
    const nodes = nodesServer(10);
    server = await startRawServer((req, res) => {
      seen.push('server');
      nodes.listener(req, res);
    });
    const api = createHttpApi({ baseUrl: server.url, tokenFile });
    await api.getConfig('pve1', 101, { onSend: () => seen.push('sent') });
    expect(seen).to.deep.equal(['sent', 'server']);
  });

  it('holds a dropped agent call\'s slot for its worst case times proxmox.daemonSlotWorstCaseScale from its send, then lets the next go', async () => {
    const arrived: number[] = [];
    server = await startRawServer((req, res) => {
      arrived.push(Date.now());
      // The first connection drops without an answer, as a network fault does.
      if (arrived.length === 1) {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { result: [] } }));
    });
    // 10 s for an agent call (daemon-worst-cases.ts), scaled to 1 s.
    const made = client(server.url, { PROXMOX_DAEMON_SLOTS_PER_NODE: '1', PROXMOX_DAEMON_SLOT_WORST_CASE_SCALE: '0.1', PROXMOX_MAX_REQUESTS_PER_SECOND: '0' });
    const dropped = await made.api.agentInterfaces('pve1', 101).then(() => 'answered', (err: unknown) => (err as Error).message);
    expect(dropped).to.not.equal('answered');
    await made.api.agentInterfaces('pve1', 102);
    const [first = 0, second = 0] = arrived;
    expect(second - first, 'pvedaemon may still run the dropped call').to.be.at.least(950);
    expect(second - first, 'not budgets.responseMs (60 s) or the unscaled 10 s').to.be.below(9_000);
  });
});
