// SPEC 24: answers and listings never return `userData` or
// `networkConfig` text (passwords and keys live there), only their byte
// size and HMAC-SHA256 under the deployment's fingerprint key, never a
// plain sha256 a guess could be tested against. A sentinel in each text is
// looked for in every answer of every /v1 route that could show a job or a
// VM, in what the producer library returns, and in what `pve-provisioner
// enqueue` prints. The job in BullMQ keeps the text: the worker needs it.
import { expect } from 'chai';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProvisionerClient } from '../../src/client.js';
import { run as enqueue } from '../../src/cli/enqueue.js';
import { REDIS_URL } from '../support/redis.js';
import { buildTestWeb, type TestWeb } from '../web/helpers.js';

const USER_SENTINEL = `user-sentinel-${randomBytes(6).toString('hex')}`;
const NET_SENTINEL = `net-sentinel-${randomBytes(6).toString('hex')}`;
const USER_DATA = `#cloud-config\npassword: ${USER_SENTINEL}\n# \u{1F511}\n`;
const NETWORK_CONFIG = `version: 2\n# ${NET_SENTINEL}\n`;

/** The plain hash an attacker could test guesses against: in no answer. */
const sha256Of = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

describe('no userData or networkConfig text in any answer (SPEC 24)', function () {
  this.timeout(60_000);
  let web: TestWeb;
  let jobId: string;
  const seen: [string, string][] = [];
  /** Computed here from the key file's line, as a receiver of the answers would check it (not with the service's code). */
  const summaryOf = (text: string): { bytes: number; hmacSha256: string } => ({
    bytes: Buffer.byteLength(text, 'utf8'),
    hmacSha256: createHmac('sha256', readFileSync(web.config.http.fingerprintKeyFile, 'utf8').trim()).update(text, 'utf8').digest('hex'),
  });

  const request = async (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object): Promise<string> => {
    const res = await web.app.inject({ method, url, headers: { authorization: `Bearer ${web.token}` }, ...(payload ? { payload } : {}) });
    seen.push([`${method} ${url} (${res.statusCode})`, res.body]);
    return res.body;
  };

  before(async () => {
    web = await buildTestWeb();
    const created = JSON.parse(await request('POST', '/v1/vms', { name: 'secret-1', uid: 'u1', userData: USER_DATA, networkConfig: NETWORK_CONFIG })) as { jobId: string };
    jobId = created.jobId;
  });
  after(() => web.close());

  it('the job in BullMQ still carries both texts, for the worker', async () => {
    expect((await web.queues.vm.getJob(jobId))?.data).to.include({ userData: USER_DATA, networkConfig: NETWORK_CONFIG });
  });

  it('every /v1 answer that shows a job or a VM gives the size and keyed fingerprint instead, and no plain sha256', async () => {
    await request('POST', '/v1/vms', { name: 'secret-1', uid: 'u1', userData: USER_DATA, networkConfig: NETWORK_CONFIG }); // existing: 200
    await request('POST', '/v1/vms', { name: 'secret-1', userData: `${USER_DATA}#changed\n`, networkConfig: NETWORK_CONFIG }); // 409
    await request('POST', '/v1/vms', { name: 'secret-1', uid: 'u2', userData: USER_DATA }); // 409, another uid
    await request('POST', '/v1/vms', { name: 'Bad_Name', userData: USER_DATA, networkConfig: `${NETWORK_CONFIG}\uD800` }); // 400
    const listing = JSON.parse(await request('GET', '/v1/vms')) as { vms: { spec: Record<string, unknown> }[] };
    const one = JSON.parse(await request('GET', '/v1/vms/secret-1')) as { spec: Record<string, unknown>; job: { data: Record<string, unknown> } };
    const job = JSON.parse(await request('GET', `/v1/jobs/${jobId}`)) as { data: Record<string, unknown> };
    await request('GET', `/v1/jobs/${jobId}?waitSeconds=1`);
    await request('POST', '/v1/vms/secret-1/check');
    await request('GET', '/v1/openapi.json');
    await request('DELETE', '/v1/vms/secret-1?uid=u1');
    await request('GET', '/v1/vms');
    await request('GET', '/v1/vms/secret-1');

    for (const shown of [listing.vms[0]?.spec, one.spec, one.job.data, job.data]) {
      expect(shown).to.deep.include({ userData: summaryOf(USER_DATA), networkConfig: summaryOf(NETWORK_CONFIG) });
    }
    expect(seen.length).to.be.at.least(12);
    for (const [what, body] of seen) {
      expect(body, what).not.to.include(USER_SENTINEL);
      expect(body, what).not.to.include(NET_SENTINEL);
      expect(body, what).not.to.include(sha256Of(USER_DATA));
      expect(body, what).not.to.include(sha256Of(NETWORK_CONFIG));
    }
  });

  it('the producer library shows the same summaries: getJob, waitForJob, getVm, listVms', async () => {
    const { jobId: id } = await web.client.createVm({ name: 'secret-2', uid: 'u1', userData: USER_DATA, networkConfig: NETWORK_CONFIG });
    const job = await web.client.getJob(id);
    const answers = [job, await web.client.waitForJob(id, { timeoutMs: 50 }), await web.client.getVm('secret-2'), await web.client.listVms()];
    const text = JSON.stringify(answers);
    expect(text).not.to.include(USER_SENTINEL);
    expect(text).not.to.include(NET_SENTINEL);
    expect(job?.data).to.deep.include({ userData: summaryOf(USER_DATA) });
    expect(text).not.to.include(sha256Of(USER_DATA));
  });

  it('the producer library given no fingerprint key shows the sizes alone', async () => {
    const keyless = createProvisionerClient({ redisUrl: REDIS_URL, prefix: web.config.redis.prefix, config: web.config });
    try {
      const { jobId: id } = await keyless.createVm({ name: 'secret-4', uid: 'u1', userData: USER_DATA });
      expect((await keyless.getJob(id))?.data).to.deep.include({ userData: { bytes: Buffer.byteLength(USER_DATA, 'utf8') } });
      expect((await keyless.getVm('secret-4'))?.spec).to.deep.include({ userData: { bytes: Buffer.byteLength(USER_DATA, 'utf8') } });
    } finally {
      await keyless.close();
    }
  });

  it('a library given a key file it cannot read says so naming fingerprintKeyFile, and creates still work', async () => {
    const client = createProvisionerClient({ redisUrl: REDIS_URL, prefix: web.config.redis.prefix, config: web.config, fingerprintKeyFile: '/nonexistent/fingerprint-key' });
    try {
      await client.createVm({ name: 'secret-5', uid: 'u1', userData: USER_DATA });
      const err = await client.getVm('secret-5').then(() => undefined, (e: unknown) => e as Error);
      expect(err?.name).to.equal('ProducerConfigError');
      expect(err?.message).to.include('fingerprintKeyFile').and.include('/nonexistent/fingerprint-key').and.include('ENOENT');
    } finally {
      await client.close();
    }
  });

  it('pve-provisioner enqueue prints neither text', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pvep-texts-'));
    try {
      writeFileSync(join(dir, 'user-data'), USER_DATA);
      writeFileSync(join(dir, 'network-config'), NETWORK_CONFIG);
      let out = '';
      const io = { config: web.config, stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (out += t) } };
      const files = ['--user-data', join(dir, 'user-data'), '--network-config', join(dir, 'network-config')];
      await enqueue(['create', '--name', 'secret-3', ...files, '--wait', '--timeout', '1'], io);
      await enqueue(['create', '--name', 'secret-3', '--vlan-tag', '7', ...files], io); // 409 naming vlanTag
      expect(out).to.include('secret-3').and.include('--vlan-tag (vlanTag) differs');
      expect(out).not.to.include(USER_SENTINEL);
      expect(out).not.to.include(NET_SENTINEL);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
