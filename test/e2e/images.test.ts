// SPEC 27 images end to end: `all` in-process on the simulator (startAll,
// real sockets, its own Redis prefix), driven over HTTP. A create naming
// a non-default image runs to Running from that image's template (the
// simulator's state shows the clone's disks where that template's are);
// GET /v1/images and /metrics show each image's health per node once a
// health job has run; bad images are refused at the door naming image.
import { expect } from 'chai';
import type { RunningAll } from '../../src/cli/all.js';
import type { ImageView } from '../../src/web/image-list.js';
import { parseSamples, valueOf } from '../support/prometheus-scrape.js';
import { eventually } from '../support/redis.js';
import { startServiceOnSim, type ServiceOnSim } from '../support/service-on-sim.js';

/** The simulator's population: each node's debian template 9001+i, and 9200 on the shared vm-shared on pve1. */
const IMAGES = [
  { name: 'debian', description: 'each node\'s own debian template', templates: { pve1: 9001, pve2: 9002 } },
  { name: 'shared', templates: { pve1: 9200, pve2: { vmid: 9200, node: 'pve1' } } },
  { name: 'missing', templates: { pve1: 9999 } },
];

interface SimVmView {
  vmid: number;
  node: string;
  status: string;
  config: Record<string, unknown>;
}

describe('images end to end on the simulator (SPEC 27)', function () {
  this.timeout(120_000);
  let service: ServiceOnSim;
  let running: RunningAll;
  let headers: Record<string, string>;

  const url = (path: string): string => `${running.web.url}${path}`;
  const post = (body: Record<string, unknown>): Promise<Response> => fetch(url('/v1/vms'), { method: 'POST', headers, body: JSON.stringify(body) });
  const images = async (): Promise<ImageView[]> => {
    const res = await fetch(url('/v1/images'), { headers });
    expect(res.status).to.equal(200);
    return ((await res.json()) as { images: ImageView[] }).images;
  };

  before(async () => {
    service = await startServiceOnSim('images', { overrides: { health: { everySeconds: 1 }, proxmox: { images: IMAGES, defaultImage: 'debian' } } });
    ({ running, headers } = service);
  });

  after(async () => {
    await service?.close();
  });

  it('a create naming a non-default image runs to Running from that image\'s template, cloned across with target', async () => {
    const created = await post({ name: 'img-shared', image: 'shared', node: 'pve2', waitForAddress: false });
    expect(created.status).to.equal(202);
    const { jobId } = (await created.json()) as { jobId: string };
    const job = (await (await fetch(url(`/v1/jobs/${jobId}?waitSeconds=60`), { headers })).json()) as { state: string; result?: { vmid: number; node: string }; logs: string[]; data: { image?: string } };
    expect(job.state, job.logs.join('\n')).to.equal('completed');
    expect(job.data.image).to.equal('shared');
    expect(job.logs.some((line) => line.includes('cloned template 9200 on node pve1 (cloned to pve2)'))).to.equal(true);
    const state = (await (await fetch(`${running.sim?.url ?? ''}/_sim/state`)).json()) as { vms: SimVmView[] };
    const vm = state.vms.find((v) => v.vmid === job.result?.vmid);
    expect(vm).to.deep.include({ node: 'pve2', status: 'running' });
    // A full clone keeps the template's storage: 9200's disks are on vm-shared, the debian templates' on local-lvm.
    expect(vm?.config.scsi0).to.match(new RegExp(`^vm-shared:vm-${job.result?.vmid}-disk-`));
  });

  it('a create naming no image gets the default one, from the node\'s own template', async () => {
    const created = await post({ name: 'img-default', node: 'pve1', waitForAddress: false });
    const { jobId } = (await created.json()) as { jobId: string };
    const job = (await (await fetch(url(`/v1/jobs/${jobId}?waitSeconds=60`), { headers })).json()) as { state: string; result?: { vmid: number }; logs: string[]; data: { image?: string } };
    expect(job.state, job.logs.join('\n')).to.equal('completed');
    expect(job.data.image).to.equal('debian');
    const state = (await (await fetch(`${running.sim?.url ?? ''}/_sim/state`)).json()) as { vms: SimVmView[] };
    expect(state.vms.find((v) => v.vmid === job.result?.vmid)?.config.scsi0).to.match(/^local-lvm:vm-\d+-disk-/);
  });

  it('refuses an unknown image, and a node that does not serve the image, as 400 naming image', async () => {
    for (const body of [{ name: 'img-bad-1', image: 'windows' }, { name: 'img-bad-2', image: 'missing', node: 'pve2' }]) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      const answer = (await res.json()) as { fields: { field: string; message: string }[] };
      expect(answer.fields.map((f) => f.field)).to.deep.equal(['image']);
    }
    expect((await fetch(url('/v1/vms/img-bad-2'), { headers })).status, 'nothing recorded').to.equal(404);
  });

  it('a different image on a present name is a 409 naming image', async () => {
    const res = await post({ name: 'img-default', node: 'pve1', waitForAddress: false, image: 'shared' });
    expect(res.status).to.equal(409);
    expect(((await res.json()) as { fields: { field: string }[] }).fields.map((f) => f.field)).to.deep.equal(['image']);
  });

  it('GET /v1/images lists every image with its templates per node and, after a health job, its health there', async () => {
    const listed = await eventually(async () => {
      const all = await images();
      return all.every((image) => image.nodes.every((n) => n.health !== undefined)) ? all : undefined;
    }, 20_000, 250);
    const summary = listed.map((image) => ({
      name: image.name,
      default: image.default,
      nodes: image.nodes.map((n) => [n.node, n.template, n.health?.ok, n.health?.reasons.map((r) => r.reason)]),
    }));
    expect(summary).to.deep.equal([
      { name: 'debian', default: true, nodes: [['pve1', { vmid: 9001, node: 'pve1' }, true, []], ['pve2', { vmid: 9002, node: 'pve2' }, true, []]] },
      { name: 'shared', default: false, nodes: [['pve1', { vmid: 9200, node: 'pve1' }, true, []], ['pve2', { vmid: 9200, node: 'pve1', target: 'pve2' }, true, []]] },
      { name: 'missing', default: false, nodes: [['pve1', { vmid: 9999, node: 'pve1' }, false, ['TemplateNotFound']]] },
    ]);
    expect(listed[0]?.description).to.equal("each node's own debian template");
    expect((await fetch(url('/v1/images'))).status, 'behind the bearer token').to.equal(401);
  });

  it('pvep_image_healthy says per image and node whether the last health job found it fit', async () => {
    const samples = parseSamples(await (await fetch(url('/metrics'), { headers })).text());
    expect(valueOf(samples, 'pvep_image_healthy', { image: 'debian', node: 'pve1' })).to.equal(1);
    expect(valueOf(samples, 'pvep_image_healthy', { image: 'shared', node: 'pve2' })).to.equal(1);
    expect(valueOf(samples, 'pvep_image_healthy', { image: 'missing', node: 'pve1' })).to.equal(0);
    expect(valueOf(samples, 'pvep_image_healthy', { image: 'missing', node: 'pve2' }), 'pve2 does not serve it').to.equal(undefined);
  });
});
