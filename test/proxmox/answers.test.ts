// SPEC 17, F1: every fixture replayed byte for byte by a real server and
// read through the real client. Errors carry the trimmed body message,
// else the reason phrase, and a 400 keeps its errors map; successful
// answers come back as their `data`.
import { expect } from 'chai';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import type { ProxmoxApi } from '../../src/proxmox/api.js';
import { ProxmoxApiError } from '../../src/proxmox/api-error.js';
import { fixtureData, fixtureNames, isErrorFixture, loadFixture } from '../support/fixtures.js';
import { startReplayServer } from '../support/replay-server.js';
import type { ReplayServer } from '../support/replay-server.js';
import { workspace } from './support.js';
import type { Workspace } from './support.js';
import { rejection } from '../support/rejection.js';

const NODE = 'pv1-1';
const VMID = 199999;
const UPID = 'UPID:pv1-1:000A1B2C:0012D687:68F0A1B2:qmclone:9001:root@pam!provisioner:';
const emptySource = { size: 0, open: () => Readable.from([]) };

/** The seam call that returns each successful fixture. */
const SUCCESS_CALLS: Record<string, (api: ProxmoxApi) => Promise<unknown>> = {
  version: (api) => api.version(),
  cluster_resources_vm: (api) => api.clusterResources('vm'),
  cluster_resources_node: (api) => api.clusterResources('node'),
  cluster_status: (api) => api.clusterStatus(),
  nodes: (api) => api.nodes(),
  node_status: (api) => api.nodeStatus(NODE),
  config_template_9001: (api) => api.getConfig(NODE, 9001),
  config_clone_ours: (api) => api.getConfig(NODE, VMID),
  config_clone_configured: (api) => api.getConfig(NODE, VMID),
  config_clone_locked: (api) => api.getConfig(NODE, VMID),
  status_current_running: (api) => api.statusCurrent(NODE, VMID),
  status_current_stopped: (api) => api.statusCurrent(NODE, VMID),
  status_current_paused: (api) => api.statusCurrent(NODE, VMID),
  task_status_running: (api) => api.taskStatus(NODE, UPID),
  task_status_ok: (api) => api.taskStatus(NODE, UPID),
  task_status_warnings: (api) => api.taskStatus(NODE, UPID),
  task_status_stopped_error: (api) => api.taskStatus(NODE, UPID),
  task_status_volume_missing: (api) => api.taskStatus(NODE, UPID),
  task_status_permission_denied: (api) => api.taskStatus(NODE, UPID),
  task_status_vmid_held_elsewhere: (api) => api.taskStatus(NODE, UPID),
  task_log_volume_missing: (api) => api.taskLog(NODE, UPID),
  task_log_warnings: (api) => api.taskLog(NODE, UPID),
  node_tasks: (api) => api.nodeTasks(NODE, { source: 'all', limit: 500 }),
  agent_interfaces: (api) => api.agentInterfaces(NODE, VMID),
  agent_interfaces_docker: (api) => api.agentInterfaces(NODE, VMID),
  agent_file_write_response: (api) => api.agentFileWrite(NODE, VMID, '/root/.ssh/authorized_keys', 'ssh-ed25519 AAAA a@b\n'),
  storages: (api) => api.storages(NODE),
  storage_content_iso: (api) => api.storageContent(NODE, 'proxy-seeds', 'iso'),
  clone_response: (api) => api.clone(NODE, 9001, { newid: VMID, name: 'proxy-reconaaaaaaaaaaa', description: 'd', full: true }),
  upload_response: (api) => api.upload(NODE, 'proxy-seeds', 'x-seed.iso', emptySource),
  upload_overwrite_response: (api) => api.upload(NODE, 'proxy-seeds', 'x-seed.iso', emptySource),
  start_response: (api) => api.start(NODE, VMID),
  start_while_clone_locked_response: (api) => api.start(NODE, VMID),
  stop_response: (api) => api.stop(NODE, VMID),
  resize_response: (api) => api.resize(NODE, VMID, 'scsi0', '10G'),
  resize_same_size_response: (api) => api.resize(NODE, VMID, 'scsi0', '3G'),
  resize_shrink_response: (api) => api.resize(NODE, VMID, 'scsi0', '1G'),
  destroy_response: (api) => api.destroy(NODE, VMID, { purge: true, destroyUnreferencedDisks: true }),
  content_delete_response: (api) => api.deleteVolume(NODE, 'proxy-seeds', 'proxy-seeds:iso/x-seed.iso'),
  content_delete_again_response: (api) => api.deleteVolume(NODE, 'proxy-seeds', 'proxy-seeds:iso/x-seed.iso'),
  put_config_response: (api) => api.putConfig(NODE, VMID, { cores: 4 }),
  put_config_tag_hyphen_response: (api) => api.putConfig(NODE, VMID, { tags: 'pve-provisioner' }),
  set_config_vlan_response: (api) => api.putConfig(NODE, VMID, { net0: 'virtio=BC:24:11:EE:48:83,bridge=vmbr0,tag=4' }),
};

/** What the seam returns for a fixture: its data, the agent's `result` list, nothing for a config write. */
function expectedValue(name: string): unknown {
  const data = fixtureData<unknown>(name);
  if (name.startsWith('agent_interfaces')) return (data as { result: unknown[] }).result;
  return data === null ? undefined : data;
}

describe('the client reads every fixture as Proxmox sent it (F1, SPEC 17)', () => {
  let ws: Workspace;
  let server: ReplayServer;
  let current = '';

  before(async () => {
    ws = workspace();
    server = await startReplayServer(() => current);
  });
  after(async () => {
    await server.close();
    ws.remove();
  });

  const names = fixtureNames();
  const errorNames = names.filter((name) => isErrorFixture(loadFixture(name)));
  const successNames = names.filter((name) => !isErrorFixture(loadFixture(name)));

  it('has a seam call for every successful fixture and fixtures of every kind', () => {
    expect(successNames.filter((name) => SUCCESS_CALLS[name] === undefined)).to.deep.equal([]);
    expect(errorNames.length).to.be.greaterThanOrEqual(20);
  });

  for (const name of successNames) {
    it(`${name}: returns the answer's data`, async () => {
      current = name;
      const call = SUCCESS_CALLS[name];
      if (call === undefined) throw new Error(`no call for ${name}`);
      expect(await call(ws.client(server.url))).to.deep.equal(expectedValue(name));
    });
  }

  for (const name of errorNames) {
    it(`${name}: status, reason phrase, trimmed message, errors map`, async () => {
      current = name;
      const fixture = loadFixture(name);
      const err = await rejection(ws.client(server.url).getConfig(NODE, VMID));
      expect(err).to.be.instanceOf(ProxmoxApiError);
      const apiErr = err as ProxmoxApiError;
      expect(apiErr.status).to.equal(fixture.status);
      expect(apiErr.reason).to.equal(fixture.reason);
      const body = fixture.body === '' ? {} : (JSON.parse(fixture.body) as { message?: string; errors?: Record<string, string> });
      expect(apiErr.message).to.equal(body.message === undefined ? fixture.reason : body.message.trim());
      expect(apiErr.message).to.not.match(/\s$/);
      const errors = body.errors === undefined ? undefined : Object.fromEntries(Object.entries(body.errors).map(([k, v]) => [k, v.trim()]));
      expect(apiErr.errors).to.deep.equal(errors);
      expect(apiErr.method).to.equal('GET');
      expect(apiErr.path).to.equal(`/nodes/${NODE}/qemu/${VMID}/config`);
    });
  }

  it('a 401 with an empty body carries the reason phrase (F22)', async () => {
    current = 'err_no_ticket';
    const err = (await rejection(ws.client(server.url).version())) as ProxmoxApiError;
    expect(err.message).to.equal('No ticket');
  });

  it('a 400 keeps the parameter that was refused (F9)', async () => {
    current = 'err_tag_invalid';
    const err = (await rejection(ws.client(server.url).putConfig(NODE, VMID, { tags: 'a b' }))) as ProxmoxApiError;
    expect(err.message).to.equal('Parameter verification failed.');
    expect(err.errors).to.deep.equal({ tags: 'invalid format - invalid characters in tag' });
  });

  it('a body message wins over the reason phrase when they differ', async () => {
    const body = JSON.stringify({ data: null, message: 'VM is locked (clone)\n' });
    const fixture = { status: 500, reason: 'Internal Server Error', headers: { 'Content-Type': 'application/json;charset=UTF-8' }, body };
    const local = await startReplayServer(() => fixture);
    try {
      const err = (await rejection(ws.client(local.url).putConfig(NODE, VMID, { cores: 2 }))) as ProxmoxApiError;
      expect(err.message).to.equal('VM is locked (clone)');
      expect(err.reason).to.equal('Internal Server Error');
    } finally {
      await local.close();
    }
  });
});

describe('the replay server sends each fixture as written', () => {
  let server: ReplayServer;
  let current = '';
  before(async () => {
    server = await startReplayServer(() => current);
  });
  after(() => server.close());

  async function rawAnswer(): Promise<Buffer> {
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    socket.end('GET /api2/json/version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const chunks: Buffer[] = [];
    for await (const chunk of socket) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  for (const name of fixtureNames()) {
    it(`${name}: status line, every header and the body`, async () => {
      current = name;
      const fixture = loadFixture(name);
      const raw = (await rawAnswer()).toString('utf8');
      const [head = '', body] = raw.split('\r\n\r\n', 2);
      const [statusLine, ...headerLines] = head.split('\r\n');
      expect(statusLine).to.equal(`HTTP/1.1 ${fixture.status} ${fixture.reason}`);
      for (const [key, value] of Object.entries(fixture.headers)) expect(headerLines).to.include(`${key}: ${value}`);
      expect(body).to.equal(fixture.body);
      expect(Number(fixture.headers['Content-Length'])).to.equal(Buffer.byteLength(fixture.body));
    });
  }
});
