// Storage behaviours over HTTP (SPEC 8): upload (F12, F23, SPEC 16),
// content list, and the volume delete (F13).
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { AUTH, captured, shape, startTestSim, type Answer, type TestSim } from './sim-helpers.js';

async function upload(sim: TestSim, node: string, storage: string, filename: string, bytes: Buffer): Promise<Answer> {
  const form = new FormData();
  form.append('content', 'iso');
  form.append('filename', new Blob([bytes]), filename);
  const response = await fetch(`${sim.url}/api2/json/nodes/${node}/storage/${storage}/upload`, { method: 'POST', body: form, headers: AUTH });
  return { status: response.status, reason: response.statusText, body: await response.text(), contentType: response.headers.get('content-type') };
}

const dataOf = (answer: Answer): string => (JSON.parse(answer.body) as { data: string }).data;
const VOLID = 'proxy-seeds:iso/proxy-reconaaaaaaaaaaa-seed.iso';
const CONTENT_PATH = `/nodes/pv1-1/storage/proxy-seeds/content`;

interface Volume {
  volid: string;
  size: number;
  sha256?: string;
}

describe('simulator: storage (F12, F13, SPEC 16)', () => {
  let sim: TestSim;
  beforeEach(async () => {
    sim = await startTestSim();
  });
  afterEach(async () => {
    await sim.close();
  });

  const isoVolumes = (): Promise<Volume[]> => sim.data<Volume[]>('GET', CONTENT_PATH, { content: 'iso' });

  it('lists each node storage with its content types, as captured', async () => {
    const storages = await sim.data<{ storage: string; content: string; type: string }[]>('GET', '/nodes/pv1-1/storage');
    expect(storages.map((s) => [s.storage, s.type, s.content])).to.deep.equal([
      ['local', 'dir', 'backup,vztmpl,iso'],
      ['local-lvm', 'lvmthin', 'rootdir,images'],
      ['proxy-seeds', 'dir', 'iso'],
      ['vm-shared', 'nfs', 'images'],
    ]);
    const isoOnly = await sim.data<{ storage: string }[]>('GET', '/nodes/pv1-1/storage', { content: 'images' });
    expect(isoOnly.map((s) => s.storage)).to.deep.equal(['local-lvm', 'vm-shared']);
    expect(storages.find((s) => s.storage === 'vm-shared')).to.include({ shared: 1 });
  });

  it('uploads an ISO as an imgcopy task and overwrites an existing name silently (F12)', async () => {
    const first = await upload(sim, 'pv1-1', 'proxy-seeds', 'proxy-reconaaaaaaaaaaa-seed.iso', Buffer.alloc(45056, 1));
    expect(dataOf(first)).to.match(/^UPID:pv1-1:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:imgcopy::root@pam!provisioner:$/);
    expect(await isoVolumes()).to.deep.equal([]);
    sim.clock.advance(1);
    expect((await isoVolumes()).map((v) => [v.volid, v.size])).to.deep.equal([[VOLID, 45056]]);
    const second = Buffer.alloc(47104, 2);
    expect((await upload(sim, 'pv1-1', 'proxy-seeds', 'proxy-reconaaaaaaaaaaa-seed.iso', second)).status).to.equal(200);
    sim.clock.advance(1);
    const state = (await sim.control('GET', 'state')) as { nodes: { node: string; storages: { storage: string; volumes: Volume[] }[] }[] };
    const seeds = state.nodes[0]?.storages.find((s) => s.storage === 'proxy-seeds')?.volumes;
    expect(seeds).to.have.length(1);
    expect(seeds?.[0]).to.include({ volid: VOLID, size: 47104, sha256: createHash('sha256').update(second).digest('hex') });
  });

  it('streams a large upload through without losing a byte', async () => {
    const big = Buffer.alloc(24 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4096) big.writeUInt32LE(i, i);
    await upload(sim, 'pv1-1', 'proxy-seeds', 'big.iso', big);
    sim.clock.advance(1);
    const state = (await sim.control('GET', 'state')) as { nodes: { storages: { storage: string; volumes: Volume[] }[] }[] };
    const volume = state.nodes[0]?.storages.find((s) => s.storage === 'proxy-seeds')?.volumes[0];
    expect(volume).to.include({ size: big.length, sha256: createHash('sha256').update(big).digest('hex') });
  });

  it('refuses a name without .iso with the captured 400 (F12)', async () => {
    expect(shape(await upload(sim, 'pv1-1', 'proxy-seeds', 'seed.txt', Buffer.alloc(10)))).to.deep.equal(captured('err_upload_wrong_extension'));
  });

  it('refuses an upload to block storage as Proxmox does', async () => {
    const answer = await upload(sim, 'pv1-1', 'local-lvm', 'seed.iso', Buffer.alloc(10));
    expect([answer.status, answer.reason]).to.deep.equal([500, "can't upload to storage type 'lvmthin'"]);
  });

  it('runs the upload task on the node that received the request, known only there (SPEC 16)', async () => {
    const upid = dataOf(await upload(sim, 'pv1-2', 'proxy-seeds', 'other-node.iso', Buffer.alloc(2048)));
    expect(upid.split(':')[1]).to.equal('pv1-1');
    const onPathNode = await sim.api('GET', `/nodes/pv1-2/tasks/${encodeURIComponent(upid)}/status`);
    expect(onPathNode.status).to.equal(400);
    expect((JSON.parse(onPathNode.body) as { errors: unknown }).errors).to.deep.equal({ upid: 'no such task' });
    sim.clock.advance(1);
    expect(await sim.data('GET', `/nodes/pv1-1/tasks/${encodeURIComponent(upid)}/status`)).to.include({ status: 'stopped', exitstatus: 'OK' });
    const onPv12 = await sim.data<Volume[]>('GET', '/nodes/pv1-2/storage/proxy-seeds/content', { content: 'iso' });
    expect(onPv12.map((v) => v.volid)).to.deep.equal(['proxy-seeds:iso/other-node.iso']);
  });

  it('deletes a volume as an imgdel task, and a repeat delete still ends OK with the captured log (F13)', async () => {
    await upload(sim, 'pv1-1', 'proxy-seeds', 'proxy-reconaaaaaaaaaaa-seed.iso', Buffer.alloc(4096));
    sim.clock.advance(1);
    const path = `${CONTENT_PATH}/${encodeURIComponent(VOLID)}`;
    const first = await sim.data<string>('DELETE', path);
    expect(first).to.match(/:imgdel:proxy-seeds:root@pam!provisioner:$/);
    const again = await sim.data<string>('DELETE', path);
    sim.clock.advance(1);
    expect(await isoVolumes()).to.deep.equal([]);
    const status = await sim.data<Record<string, unknown>>('GET', `/nodes/pv1-1/tasks/${encodeURIComponent(again)}/status`);
    expect(status).to.include({ status: 'stopped', exitstatus: 'OK', type: 'imgdel', id: 'proxy-seeds' });
    const log = await sim.data<unknown>('GET', `/nodes/pv1-1/tasks/${encodeURIComponent(again)}/log`);
    expect(log).to.deep.equal((JSON.parse(captured('task_log_volume_missing').body) as { data: unknown }).data);
  });

  it('answers the captured 403 where Datastore.Allocate is denied (F13)', async () => {
    await sim.faults({ denyAllocate: ['local'] });
    const answer = await sim.api('DELETE', `/nodes/pv1-1/storage/local/content/${encodeURIComponent('local:iso/x.iso')}`);
    expect(shape(answer)).to.deep.equal(captured('err_forbidden_volume_delete'));
    expect((await sim.api('DELETE', `${CONTENT_PATH}/${encodeURIComponent(VOLID)}`)).status).to.equal(200);
  });

  it('lists the VM disks of an images storage', async () => {
    const disks = await sim.data<{ volid: string; vmid: number }[]>('GET', '/nodes/pv1-1/storage/local-lvm/content', { content: 'images' });
    expect(disks.filter((d) => d.vmid === 9001).map((d) => d.volid)).to.deep.equal(['local-lvm:base-9001-disk-0', 'local-lvm:base-9001-disk-1']);
  });
});
