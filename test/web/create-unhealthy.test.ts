// Issue 26, SPEC 19: a create while the last health check found no node
// fit to take a VM. By default (jobs.acceptWhenUnhealthy) it is accepted,
// and the 202 says why it will wait; with the key false it is a 503 with
// Retry-After and the reason, and nothing is recorded or enqueued. The
// web app on the real Redis, the health result written as workers do.
import { expect } from 'chai';
import type { NodeHealth } from '../../src/provider/types.js';
import { writeLastHealth } from '../../src/queue/health-store.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

const unfit: NodeHealth[] = [
  { node: 'pve1', ok: false, reasons: [{ reason: 'Unreachable', detail: 'connect ECONNREFUSED 127.0.0.1:8006' }] },
  { node: 'pve2', ok: false, reasons: [{ reason: 'CredentialsUnavailable', detail: 'the token file var/proxmox-token does not exist' }] },
];
const oneFit: NodeHealth[] = [{ node: 'pve1', ok: true, reasons: [] }, unfit[1] as NodeHealth];

describe('creates when no node can take a VM (issue 26, SPEC 19)', () => {
  let web: TestWeb;
  afterEach(() => web.close());

  const create = (name: string) =>
    web.app.inject({ method: 'POST', url: '/v1/vms', headers: { authorization: `Bearer ${web.token}` }, payload: { name } });

  describe('by default (jobs.acceptWhenUnhealthy true)', () => {
    beforeEach(async () => {
      web = await buildTestWeb();
    });

    it('accepts the create with a warning naming each node and the check it failed', async () => {
      await writeLastHealth(web.redis, web.prefix, unfit);
      const res = await create('unhealthy-1');
      expect(res.statusCode).to.equal(202);
      const body = res.json<{ jobId: string; warning?: string }>();
      expect(body.warning).to.match(/^no node can take a VM: the last health check \(.+\) found pve1: Unreachable \(connect ECONNREFUSED 127\.0\.0\.1:8006\); pve2: CredentialsUnavailable/);
      expect(body.warning).to.contain('waits and retries');
      expect(await web.queues.vm.getJob(body.jobId), 'enqueued').to.not.equal(undefined);
    });

    it('gives no warning while a node passes, nor before any health result', async () => {
      const unknown = await create('unknown-2');
      expect(unknown.statusCode).to.equal(202);
      expect(unknown.json<object>()).to.not.have.property('warning');
      await writeLastHealth(web.redis, web.prefix, oneFit);
      const healthy = await create('healthy-1');
      expect(healthy.statusCode).to.equal(202);
      expect(healthy.json<object>()).to.not.have.property('warning');
    });
  });

  describe('with jobs.acceptWhenUnhealthy false', () => {
    beforeEach(async () => {
      web = await buildTestWeb({}, { env: { JOBS_ACCEPT_WHEN_UNHEALTHY: 'false', HEALTH_EVERY_SECONDS: '45' } });
    });

    it('refuses with 503, Retry-After and the reason, recording and enqueuing nothing', async () => {
      await writeLastHealth(web.redis, web.prefix, unfit);
      const res = await create('refused-1');
      expect(res.statusCode).to.equal(503);
      expect(res.headers['retry-after']).to.equal('45');
      const body = res.json<{ error: string; message: string }>();
      expect(body.error).to.equal('NoHealthyNode');
      expect(body.message).to.match(/^no node can take a VM: .*pve1: Unreachable .*pve2: CredentialsUnavailable .*jobs\.acceptWhenUnhealthy is false/);
      expect((await web.app.inject({ method: 'GET', url: '/v1/vms/refused-1', headers: { authorization: `Bearer ${web.token}` } })).statusCode, 'no record').to.equal(404);
      const counts = await web.queues.vm.getJobCounts();
      expect(Object.values(counts).reduce((a, b) => a + b, 0), 'no job').to.equal(0);
    });

    it('accepts as usual once a node passes', async () => {
      await writeLastHealth(web.redis, web.prefix, oneFit);
      const res = await create('accepted-1');
      expect(res.statusCode).to.equal(202);
      expect(res.json<object>()).to.not.have.property('warning');
    });
  });
});
