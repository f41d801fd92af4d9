// SPEC 18: what the client puts on the wire, seen by a real server: the
// token file checked once a second, HTTP/1.1, escaped path segments, form
// bodies for writes, queries for reads and deletes, cancellation, and
// no secret in an error even when the server echoes it.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { inspect } from 'node:util';
import { classOf } from '../../src/errors.js';
import { ProxmoxApiError } from '../../src/proxmox/api-error.js';
import { classifyError, kindOf } from '../../src/proxmox/classify.js';
import type { Fixture } from '../support/fixtures.js';
import { startRawServer, startReplayServer } from '../support/replay-server.js';
import type { RecordedRequest, ReplayServer } from '../support/replay-server.js';
import { TOKEN, TOKEN_ID, TOKEN_SECRET, workspace } from './support.js';
import type { Workspace } from './support.js';
import { rejection } from '../support/rejection.js';
import { FakeClock } from '../fakes/clock.js';
import { TOKEN_CHECK_INTERVAL_MS } from '../../src/proxmox/token-cache.js';

function only(server: ReplayServer): RecordedRequest {
  expect(server.requests).to.have.length(1);
  const [request] = server.requests;
  if (request === undefined) throw new Error('no request');
  return request;
}

function formOf(request: RecordedRequest): Record<string, string> {
  expect(request.headers['content-type']).to.equal('application/x-www-form-urlencoded');
  return Object.fromEntries(new URLSearchParams(request.body.toString('utf8')));
}

describe('the HTTP client on the wire (SPEC 18)', () => {
  let ws: Workspace;
  let server: ReplayServer;
  let answer = 'put_config_response';

  beforeEach(async () => {
    ws = workspace();
    answer = 'put_config_response';
    server = await startReplayServer(() => answer);
  });
  afterEach(async () => {
    await server.close();
    ws.remove();
  });

  it('sends the token as Authorization: PVEAPIToken=... under /api2/json', async () => {
    answer = 'version';
    await ws.client(server.url).version();
    const request = only(server);
    expect(request.headers.authorization).to.equal(`PVEAPIToken=${TOKEN}`);
    expect(request.rawPath).to.equal('/api2/json/version');
  });

  it('keeps the token for a second, then uses a rotated file without a restart', async () => {
    answer = 'version';
    const clock = new FakeClock();
    const api = ws.client(server.url, { now: () => clock.now().getTime() });
    await api.version();
    const rotated = `${TOKEN_ID}=9d8c7b6a-5f4e-4d3c-2b1a-0f9e8d7c6b5a`;
    ws.writeToken(`${rotated}\n`);
    await api.version();
    clock.advance(TOKEN_CHECK_INTERVAL_MS);
    await api.version();
    expect(server.requests.map((r) => r.headers.authorization)).to.deep.equal([`PVEAPIToken=${TOKEN}`, `PVEAPIToken=${TOKEN}`, `PVEAPIToken=${rotated}`]);
  });

  it('a missing token file is Transient (CredentialsUnavailable), sends nothing, and works once the file appears', async () => {
    answer = 'version';
    const api = ws.client(server.url);
    rmSync(ws.tokenFile);
    const err = await rejection(api.version());
    expect(classOf(err)).to.equal('Transient');
    expect(kindOf(err)).to.equal('CredentialsUnavailable');
    expect(classifyError(err).reason).to.contain(ws.tokenFile);
    expect(server.requests).to.have.length(0);
    ws.writeToken(TOKEN);
    expect((await api.version()).version).to.equal('9.2.20');
  });

  it('speaks HTTP/1.1', async () => {
    answer = 'version';
    await ws.client(server.url).version();
    expect(only(server).httpVersion).to.equal('1.1');
  });

  it("escapes every path segment, so a volid's / travels as %2F", async () => {
    answer = 'content_delete_response';
    await ws.client(server.url).deleteVolume('pv1-1', 'proxy-seeds', 'proxy-seeds:iso/proxy-reconaaaaaaaaaaa-seed.iso');
    const request = only(server);
    expect(request.method).to.equal('DELETE');
    expect(request.rawPath).to.equal('/api2/json/nodes/pv1-1/storage/proxy-seeds/content/proxy-seeds%3Aiso%2Fproxy-reconaaaaaaaaaaa-seed.iso');
    expect(request.body.length).to.equal(0);
  });

  it('escapes a UPID in the task path', async () => {
    answer = 'task_status_ok';
    const upid = 'UPID:pv1-1:000A1B2C:0012D687:68F0A1B2:qmclone:9001:root@pam!provisioner:';
    await ws.client(server.url).taskStatus('pv1-1', upid);
    expect(decodeURIComponent(only(server).rawPath)).to.equal(`/api2/json/nodes/pv1-1/tasks/${upid}/status`);
    expect(only(server).rawPath).to.not.contain(':');
  });

  it('lists a node\'s tasks with the query it is given and answers the entries as Proxmox sends them (SPEC 26)', async () => {
    answer = 'node_tasks';
    const entries = await ws.client(server.url).nodeTasks('pv1-1', { source: 'all', since: 1760600498, limit: 1000, userfilter: 'root@pam' });
    const request = only(server);
    expect(request.method).to.equal('GET');
    expect(request.rawPath).to.equal('/api2/json/nodes/pv1-1/tasks');
    expect(Object.fromEntries(request.query)).to.deep.equal({ source: 'all', since: '1760600498', limit: '1000', userfilter: 'root@pam' });
    expect(entries.map((e) => [e.type, e.status, e.user])).to.deep.equal([
      ['qmstart', 'RUNNING', 'root@pam!provisioner'],
      ['resize', 'OK', 'root@pam'],
      ['imgcopy', 'WARNINGS: 1', 'root@pam'],
      ['qmclone', "close (rename) atomic file '/etc/pve/nodes/pv1-1/qemu-server/199999.conf' failed: File exists", 'root@pam'],
    ]);
    expect(entries[1]).to.include({ upid: 'UPID:pv1-1:000A1B3A:0012D69A:68F0A1B9:resize:199999:root@pam!provisioner:', starttime: 0x68f0a1b9, endtime: 0x68f0a1ba, tokenid: 'provisioner' });
  });

  it('sends no parameter the caller left undefined in a task listing', async () => {
    answer = 'node_tasks';
    await ws.client(server.url).nodeTasks('pv1-1', { source: 'all', since: undefined });
    expect(Object.fromEntries(only(server).query)).to.deep.equal({ source: 'all' });
  });

  it('writes config as a form body, nothing in the query', async () => {
    await ws.client(server.url).putConfig('pv1-1', 199999, { cores: 4, memory: 4096, tags: 'debian;pve_provisioner', ide2: 'proxy-seeds:iso/x-seed.iso,media=cdrom' });
    const request = only(server);
    expect(request.method).to.equal('PUT');
    expect(request.rawPath).to.equal('/api2/json/nodes/pv1-1/qemu/199999/config');
    expect(formOf(request)).to.deep.equal({ cores: '4', memory: '4096', tags: 'debian;pve_provisioner', ide2: 'proxy-seeds:iso/x-seed.iso,media=cdrom' });
    expect([...request.query.keys()]).to.deep.equal([]);
  });

  it('clones with full=1 stated and the mark in description (SPEC 13, F10)', async () => {
    answer = 'clone_response';
    const description = 'managed-by: pve-provisioner\nuid: 3f1c\nwritten-at-create: 2026-09-19T10:04:12Z';
    const upid = await ws.client(server.url).clone('pv1-1', 9001, { newid: 199999, name: 'proxy-reconaaaaaaaaaaa', description, full: true, storage: 'local-lvm' });
    expect(upid).to.match(/^UPID:pv1-1:.*:qmclone:9001:/);
    const request = only(server);
    expect(request.method).to.equal('POST');
    expect(request.rawPath).to.equal('/api2/json/nodes/pv1-1/qemu/9001/clone');
    expect(formOf(request)).to.deep.equal({ newid: '199999', name: 'proxy-reconaaaaaaaaaaa', description, full: '1', storage: 'local-lvm' });
  });

  it('resizes with disk and size in a PUT form', async () => {
    answer = 'resize_response';
    await ws.client(server.url).resize('pv1-1', 199999, 'scsi0', '10G');
    const request = only(server);
    expect(request.method).to.equal('PUT');
    expect(formOf(request)).to.deep.equal({ disk: 'scsi0', size: '10G' });
  });

  it('destroys with purge and destroy-unreferenced-disks in the query (SPEC 15)', async () => {
    answer = 'destroy_response';
    await ws.client(server.url).destroy('pv1-1', 199999, { purge: true, destroyUnreferencedDisks: true });
    const request = only(server);
    expect(request.method).to.equal('DELETE');
    expect(request.rawPath).to.equal('/api2/json/nodes/pv1-1/qemu/199999');
    expect(Object.fromEntries(request.query)).to.deep.equal({ purge: '1', 'destroy-unreferenced-disks': '1' });
  });

  it('reads with the parameters in the query', async () => {
    answer = 'cluster_resources_vm';
    await ws.client(server.url).clusterResources('vm');
    expect(Object.fromEntries(only(server).query)).to.deep.equal({ type: 'vm' });
  });

  it('redacts a token the server echoes in its message, reason phrase and errors map', async () => {
    const echo = `token PVEAPIToken=${TOKEN} refused; secret ${TOKEN_SECRET}`;
    const fixture: Fixture = {
      status: 400,
      reason: echo,
      headers: { 'Content-Type': 'application/json;charset=UTF-8' },
      body: JSON.stringify({ data: null, message: `${echo}\n`, errors: { authorization: `${echo}\n` } }),
    };
    const local = await startReplayServer(() => fixture);
    try {
      const err = await rejection(ws.client(local.url).version());
      expect(err).to.be.instanceOf(ProxmoxApiError);
      const classified = classifyError(err);
      for (const text of [inspect(err, { depth: 8 }), String(err), JSON.stringify(err), classified.reason, inspect(classified, { depth: 8 })]) {
        expect(text).to.not.contain(TOKEN_SECRET);
      }
    } finally {
      await local.close();
    }
  });

  it('a 2xx body that is not JSON is Transient and does not quote the body', async () => {
    const fixture: Fixture = { status: 200, reason: 'OK', headers: { 'Content-Type': 'text/html' }, body: `<html>${TOKEN_SECRET}</html>` };
    const local = await startReplayServer(() => fixture);
    try {
      const err = await rejection(ws.client(local.url).version());
      expect(classOf(err)).to.equal('Transient');
      expect(inspect(err)).to.not.contain(TOKEN_SECRET);
    } finally {
      await local.close();
    }
  });

  it('honours an AbortSignal: the call ends Transient while the server still holds the request', async () => {
    let seen!: () => void;
    const requestSeen = new Promise<void>((resolve) => {
      seen = resolve;
    });
    const hanging = await startRawServer(() => seen());
    try {
      const controller = new AbortController();
      const call = ws.client(hanging.url).version({ signal: controller.signal });
      await requestSeen;
      controller.abort(new Error('job cancelled'));
      const err = classifyError(await rejection(call));
      expect(err.errorClass).to.equal('Transient');
      expect(err.reason).to.equal('request cancelled');
    } finally {
      await hanging.close();
    }
  });

  it('an already aborted signal sends nothing', async () => {
    answer = 'version';
    const err = await rejection(ws.client(server.url).version({ signal: AbortSignal.abort() }));
    expect(classOf(err)).to.equal('Transient');
    expect(server.requests).to.have.length(0);
  });
});
