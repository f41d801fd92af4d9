// SPEC 9: the decorator writes one debug line per Proxmox call with
// method, path, status, duration and the identifiers, never a secret,
// and reports each call to the metrics.
import { expect } from 'chai';
import { Readable } from 'node:stream';
import { createLogger } from '../../src/log.js';
import { observeApi } from '../../src/proxmox/observed-api.js';
import type { ProxmoxApi } from '../../src/proxmox/api.js';
import { startRawServer, startReplayServer } from '../support/replay-server.js';
import type { ReplayServer } from '../support/replay-server.js';
import { TOKEN_SECRET, workspace } from './support.js';
import type { Workspace } from './support.js';
import { rejection } from '../support/rejection.js';

interface Line {
  level: number;
  msg: string;
  [key: string]: unknown;
}

function sink(): { lines: Line[]; raw: string[]; write(text: string): void } {
  const raw: string[] = [];
  const lines: Line[] = [];
  return {
    lines,
    raw,
    write(text: string) {
      raw.push(text);
      lines.push(JSON.parse(text) as Line);
    },
  };
}

describe('the logging decorator (SPEC 9)', () => {
  let ws: Workspace;
  let server: ReplayServer;
  let answer = 'clone_response';
  let out: ReturnType<typeof sink>;
  let calls: [string, string, number][];
  let api: ProxmoxApi;

  beforeEach(async () => {
    ws = workspace();
    answer = 'clone_response';
    server = await startReplayServer(() => answer);
    out = sink();
    calls = [];
    const logger = createLogger({ level: 'debug', pretty: false, destination: out });
    api = observeApi(ws.client(server.url), logger, { proxmoxCall: (method, status, seconds) => calls.push([method, status, seconds]) });
  });
  afterEach(async () => {
    await server.close();
    ws.remove();
  });

  it('logs a clone with method, path, status, duration, vmid, newid and name', async () => {
    await api.clone('pv1-1', 9001, { newid: 199999, name: 'proxy-reconaaaaaaaaaaa', description: 'managed-by: pve-provisioner', full: true });
    expect(out.lines).to.have.length(1);
    const line = out.lines[0];
    expect(line).to.include({ level: 20, msg: 'proxmox api call', method: 'POST', path: '/nodes/pv1-1/qemu/9001/clone', status: 200 });
    expect(line).to.include({ node: 'pv1-1', vmid: 9001, newid: 199999, name: 'proxy-reconaaaaaaaaaaa' });
    expect(line?.durationMs).to.be.a('number').and.at.least(0);
    expect(line).to.not.have.property('description');
    expect(calls).to.have.length(1);
    expect(calls[0]?.slice(0, 2)).to.deep.equal(['clone', '200']);
  });

  it('names the filename of an upload and the volid of a volume delete', async () => {
    answer = 'upload_response';
    await api.upload('pv1-1', 'proxy-seeds', 'x-seed.iso', { size: 3, open: () => Readable.from([Buffer.from('abc')]) });
    answer = 'content_delete_response';
    await api.deleteVolume('pv1-1', 'proxy-seeds', 'proxy-seeds:iso/x-seed.iso');
    expect(out.lines[0]).to.include({ filename: 'x-seed.iso', storage: 'proxy-seeds', path: '/nodes/pv1-1/storage/proxy-seeds/upload' });
    expect(out.lines[1]).to.include({ volid: 'proxy-seeds:iso/x-seed.iso', method: 'DELETE' });
  });

  it("names the node whose own apiUrl a cluster-wide call was sent through (SPEC 28)", async () => {
    answer = 'nodes';
    await api.nodes({ via: 'pv1-2' });
    await api.nodes();
    expect(out.lines[0]).to.include({ call: 'nodes', path: '/nodes', via: 'pv1-2' });
    expect(out.lines[1]).to.not.have.property('via');
  });

  it('logs a failed call with its HTTP status and the error, and counts it', async () => {
    answer = 'err_config_missing';
    await rejection(api.getConfig('pv1-1', 999999));
    expect(out.lines[0]).to.include({ status: 500, vmid: 999999, error: "Configuration file 'nodes/pv1-1/qemu-server/999999.conf' does not exist" });
    expect(calls[0]?.slice(0, 2)).to.deep.equal(['getConfig', '500']);
  });

  it('logs a call that got no answer with status 0 and counts it as error', async () => {
    const dead = await startRawServer((req) => req.socket.destroy());
    try {
      const logger = createLogger({ level: 'debug', pretty: false, destination: out });
      const observed = observeApi(ws.client(dead.url), logger, { proxmoxCall: (m, s, sec) => calls.push([m, s, sec]) });
      await rejection(observed.version());
      expect(out.lines[0]).to.include({ status: 0, path: '/version' });
      expect(calls[0]?.slice(0, 2)).to.deep.equal(['version', 'error']);
    } finally {
      await dead.close();
    }
  });

  it('never writes the token, even when the server echoes it', async () => {
    const fixture = {
      status: 500,
      reason: `bad token ${TOKEN_SECRET}`,
      headers: { 'Content-Type': 'application/json;charset=UTF-8' },
      body: JSON.stringify({ data: null, message: `bad token PVEAPIToken=root@pam!provisioner=${TOKEN_SECRET}\n` }),
    };
    const echo = await startReplayServer(() => fixture);
    try {
      const logger = createLogger({ level: 'debug', pretty: false, destination: out });
      await rejection(observeApi(ws.client(echo.url), logger).version());
      expect(out.raw.join('')).to.not.contain(TOKEN_SECRET);
      expect(out.lines).to.have.length(1);
    } finally {
      await echo.close();
    }
  });

  it('writes nothing at info level', async () => {
    const quiet = sink();
    const observed = observeApi(ws.client(server.url), createLogger({ level: 'info', pretty: false, destination: quiet }));
    answer = 'version';
    await observed.version();
    expect(quiet.lines).to.deep.equal([]);
  });
});
