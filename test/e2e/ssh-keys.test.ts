// SPEC 27 against the running service: `all` in-process on the simulator
// (startAll, real sockets, its own Redis prefix), driven over HTTP. A
// create with two sshKeys ends with the simulator holding the seed whose
// meta-data lists both (the simulator keeps each upload's sha256, which
// is compared with the seed built here, then read back with pycdlib); a
// bad key is a 400 naming sshKeys[0], and nothing is recorded or enqueued.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { RunningAll } from '../../src/cli/all.js';
import type { Config } from '../../src/config/index.js';
import { buildSeed } from '../../src/nocloud/seed.js';
import { createQueues } from '../../src/queue/queues.js';
import { pycdlibView } from '../nocloud/readers.js';
import { REDIS_URL } from '../support/redis.js';
import { startServiceOnSim, type ServiceOnSim } from '../support/service-on-sim.js';
import { fixtureKey } from '../support/ssh-keys.js';

interface SimVolume {
  volid: string;
  sha256?: string;
}
interface SimState {
  nodes: { node: string; storages: { storage: string; volumes: SimVolume[] }[] }[];
}

async function bytesOf(source: ReturnType<typeof buildSeed>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of source.open()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('sshKeys through the running service on the simulator (SPEC 27)', function () {
  this.timeout(120_000);
  let service: ServiceOnSim;
  let dir: string;
  let prefix: string;
  let config: Config;
  let running: RunningAll;
  let headers: Record<string, string>;
  const keys = [fixtureKey('ed25519.pub'), fixtureKey('rsa-2048.pub')];

  const url = (path: string): string => `${running.web.url}${path}`;
  const post = (body: unknown): Promise<Response> => fetch(url('/v1/vms'), { method: 'POST', headers, body: JSON.stringify(body) });

  before(async () => {
    service = await startServiceOnSim('ssh-e2e');
    ({ running, headers, dir, prefix, config } = service);
  });

  after(async () => {
    await service?.close();
  });

  it('uploads a seed whose meta-data gives the default user both keys, and shows the keys as sent', async () => {
    const created = await post({ name: 'keys-e2e', sshKeys: keys, waitForAddress: false });
    expect(created.status, await created.clone().text()).to.equal(202);
    const { jobId } = (await created.json()) as { jobId: string };
    const job = (await (await fetch(url(`/v1/jobs/${jobId}?waitSeconds=60`), { headers })).json()) as { state: string; result?: { node?: string } };
    expect(job.state).to.equal('completed');

    const state = (await (await fetch(`${running.sim?.url ?? ''}/_sim/state`)).json()) as SimState;
    const node = state.nodes.find((n) => n.node === job.result?.node);
    const isoStorage = config.proxmox.nodes.find((n) => n.name === job.result?.node)?.isoStorage ?? '';
    const uploaded = node?.storages.find((s) => s.storage === isoStorage)?.volumes.find((v) => v.volid === `${isoStorage}:iso/keys-e2e-seed.iso`);
    const expected = await bytesOf(buildSeed({ name: 'keys-e2e', sshKeys: keys, installGuestAgent: config.proxmox.installGuestAgent, joliet: config.proxmox.seedJoliet }));
    expect(uploaded?.sha256, 'the seed the simulator received').to.equal(createHash('sha256').update(expected).digest('hex'));

    const iso = join(dir, 'expected.iso');
    writeFileSync(iso, expected);
    const metaData = pycdlibView(iso, 'rr').get('meta-data')?.toString('utf8') ?? '';
    expect(metaData).to.equal(`instance-id: "keys-e2e"\nlocal-hostname: "keys-e2e"\npublic-keys:\n${keys.map((k) => `  - "${k}"\n`).join('')}`);

    const vm = (await (await fetch(url('/v1/vms/keys-e2e'), { headers })).json()) as { spec?: { sshKeys?: string[] } };
    expect(vm.spec?.sshKeys, 'public keys are shown as they are (docs/decisions.md)').to.deep.equal(keys);
  });

  it('answers a repeat of the same create with the same job, and another key list with 409 naming sshKeys', async () => {
    const again = await post({ name: 'keys-e2e', sshKeys: keys, waitForAddress: false });
    expect(again.status).to.equal(200);
    const other = await post({ name: 'keys-e2e', sshKeys: [keys[0]], waitForAddress: false });
    expect(other.status).to.equal(409);
    expect(((await other.json()) as { fields: { field: string }[] }).fields.map((f) => f.field)).to.deep.equal(['sshKeys']);
  });

  it('refuses a bad key with 400 naming sshKeys[0], recording and enqueuing nothing', async () => {
    const redis = new Redis(REDIS_URL);
    const queues = createQueues(redis, prefix);
    const jobCount = (): Promise<number> => queues.vm.getJobCountByTypes('waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized');
    const before = await jobCount();
    const refused = await post({ name: 'keys-bad', sshKeys: [fixtureKey('dsa.pub'), keys[0]] });
    expect(refused.status).to.equal(400);
    const body = (await refused.json()) as { fields: { field: string; message: string }[] };
    expect(body.fields).to.have.length(1);
    expect(body.fields[0]?.field).to.equal('sshKeys[0]');
    expect(body.fields[0]?.message).to.match(/^is not an OpenSSH public key: its type is ssh-dss, allowed: ssh-ed25519, /);
    expect((await fetch(url('/v1/vms/keys-bad'), { headers })).status).to.equal(404);
    expect(await jobCount()).to.equal(before);
    expect(before, 'the create of the first case is counted').to.be.greaterThan(0);
    await queues.vm.close();
    await queues.system.close();
    await redis.quit();
  });

  it('documents sshKeys in the OpenAPI as an array of strings', async () => {
    const doc = (await (await fetch(url('/v1/openapi.json'), { headers })).json()) as {
      paths: { '/vms': { post: { requestBody: { content: { 'application/json': { schema: { properties: { sshKeys: Record<string, unknown> } } } } } } } };
    };
    const schema = doc.paths['/vms'].post.requestBody.content['application/json'].schema.properties.sshKeys;
    expect(schema).to.include({ type: 'array', maxItems: 32 });
    expect(schema.items).to.include({ type: 'string' });
  });
});
