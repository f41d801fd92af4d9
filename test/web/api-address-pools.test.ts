// SPEC 29 (issue 31) over HTTP: a create on a pooled network is answered
// 202 with its address before anything exists; GET /v1/vms/{name}, the
// listing and the job view show it; an exhausted pool is a 409 naming the
// pool and network, with nothing recorded; the OpenAPI document has the
// fields.
import { expect } from 'chai';
import { buildTestWeb, type TestWeb } from './helpers.js';

const NODES = [
  { name: 'pve1', template: 9001, isoStorage: 'proxy-seeds', bridge: 'vmbr1', vlanTag: 20 },
  { name: 'pve2', template: 9002, isoStorage: 'proxy-seeds', bridge: 'vmbr1', vlanTag: 20 },
];
const POOL = { name: 'lan20', bridge: 'vmbr1', vlanTag: 20, cidr: '127.77.0.0/24', gateway: '127.77.0.1', first: '127.77.0.100', last: '127.77.0.101' };

describe('HTTP API: address pools (SPEC 29)', () => {
  let web: TestWeb;
  beforeEach(async () => {
    web = await buildTestWeb({}, { env: { PROXMOX_NODES: JSON.stringify(NODES), PROXMOX_NETWORKS: JSON.stringify([POOL]) } });
  });
  afterEach(() => web.close());

  const auth = (): Record<string, string> => ({ authorization: `Bearer ${web.token}` });
  const post = (payload: object) => web.app.inject({ method: 'POST', url: '/v1/vms', headers: auth(), payload });
  const get = (url: string) => web.app.inject({ method: 'GET', url, headers: auth() });

  it('the 202 carries the address; GET /v1/vms/{name}, the listing and the job show it; a repeat answers the same', async () => {
    const res = await post({ name: 'pooled-1', uid: 'owner-1' });
    expect(res.statusCode).to.equal(202);
    const body = res.json<{ jobId: string; address: string; addressPool: string }>();
    expect(body).to.include({ address: '127.77.0.100', addressPool: 'lan20' });
    const vm = (await get('/v1/vms/pooled-1')).json<{ address: string; addressPool: string; job: { data: { address: Record<string, unknown> } } }>();
    expect(vm).to.include({ address: '127.77.0.100', addressPool: 'lan20' });
    expect(vm.job.data.address).to.include({ pool: 'lan20', address: '127.77.0.100', prefixLength: 24, gateway: '127.77.0.1', uid: 'owner-1' });
    const listed = (await get('/v1/vms')).json<{ vms: { name: string; address?: string }[] }>().vms;
    expect(listed.map(({ name, address }) => ({ name, address }))).to.deep.equal([{ name: 'pooled-1', address: '127.77.0.100' }]);
    expect((await get(`/v1/jobs/${body.jobId}`)).json<{ data: { address: { address: string } } }>().data.address.address).to.equal('127.77.0.100');
    const again = await post({ name: 'pooled-1', uid: 'owner-1' });
    expect(again.statusCode).to.equal(200);
    expect(again.json()).to.include({ address: '127.77.0.100', existing: true });
  });

  it('an exhausted pool is a 409 PoolExhausted naming the pool and network; the name is not recorded', async () => {
    expect((await post({ name: 'full-1' })).statusCode).to.equal(202);
    expect((await post({ name: 'full-2' })).statusCode).to.equal(202);
    const res = await post({ name: 'full-3' });
    expect(res.statusCode).to.equal(409);
    expect(res.json()).to.include({ error: 'PoolExhausted', name: 'full-3', pool: 'lan20', network: 'bridge vmbr1, VLAN 20, 127.77.0.0/24' });
    expect(res.json<{ message: string }>().message).to.match(/address pool lan20 .* has no free address for full-3/);
    expect((await get('/v1/vms/full-3')).statusCode).to.equal(404);
    expect(await web.queues.vm.getJobCountByTypes('waiting')).to.equal(2);
  });

  it('a networkConfig on the pooled network is a 400 naming networkConfig', async () => {
    const res = await post({ name: 'own-net', networkConfig: 'version: 2\n' });
    expect(res.statusCode).to.equal(400);
    expect(res.json<{ fields: { field: string }[] }>().fields.map((f) => f.field)).to.deep.equal(['networkConfig']);
  });

  it('the OpenAPI document has address and addressPool on the answer and the VM, the lease in the create job\'s data, and the 409', async () => {
    const doc = (await web.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{ components: { schemas: Record<string, { properties: Record<string, { type?: string; required?: string[] }> }> }; paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>> }>();
    const { schemas } = doc.components;
    for (const schema of ['Enqueued', 'Vm']) expect(Object.keys(schemas[schema]?.properties ?? {}), schema).to.include.members(['address', 'addressPool']);
    expect(schemas.CreateJobData?.properties.address).to.deep.include({ type: 'object', required: ['pool', 'address', 'prefixLength', 'dns', 'uid', 'takenAt'] });
    expect(doc.paths['/vms']?.post?.responses['409']?.description).to.contain('PoolExhausted');
  });
});
