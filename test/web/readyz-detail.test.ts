// Issue 25 item 6, SPEC 24: /metrics and /readyz's checks name workers,
// hosts, nodes and images, so by default (http.metricsAuth) they need a
// bearer token. Without one /readyz still says ready or not and why in
// words (issue 26: the workers cannot provision, and the kinds of check
// that failed), naming no host, worker or node.
import { expect } from 'chai';
import { hostname } from 'node:os';
import type { NodeHealth } from '../../src/provider/types.js';
import { writeLastHealth } from '../../src/queue/health-store.js';
import { startHeartbeat, type Heartbeat } from '../../src/queue/heartbeat.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

const WORKER_ID = 'worker-7f3a-on-build-host';
const unfit: NodeHealth[] = [
  { node: 'pve-rack4', ok: false, reasons: [{ reason: 'Unreachable', detail: 'connect ECONNREFUSED 10.1.4.2:8006' }] },
  { node: 'pve-rack5', ok: false, reasons: [{ reason: 'CredentialsUnavailable', detail: 'the token file /etc/pvep/token does not exist' }] },
];

interface Answer {
  ready: boolean;
  reason?: string;
  details?: string;
  checks?: { workers: { workers?: { id: string; host: string }[] }; health: { nodes?: NodeHealth[] } };
}

describe('/readyz and /metrics: what an answer without a token shows (issue 25, SPEC 24)', () => {
  let web: TestWeb;
  let beat: Heartbeat | undefined;
  afterEach(async () => {
    await beat?.stop();
    beat = undefined;
    await web.close();
  });

  const get = (url: string, token?: string) =>
    web.app.inject({ method: 'GET', url, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

  async function unhealthyWithAWorker(): Promise<void> {
    beat = startHeartbeat(web.redis, web.prefix, WORKER_ID, 2);
    await beat.first;
    await writeLastHealth(web.redis, web.prefix, unfit);
  }

  describe('by default', () => {
    beforeEach(async () => {
      web = await buildTestWeb();
    });

    it('without a token /readyz says not ready and why in words, naming no host, worker or node', async () => {
      await unhealthyWithAWorker();
      const res = await get('/readyz');
      expect(res.statusCode).to.equal(503);
      const body = res.json<Answer>();
      expect(body.ready).to.equal(false);
      expect(body.reason).to.equal('the workers cannot provision: the last health check found no node fit to take VMs (Unreachable, CredentialsUnavailable)');
      expect(body.details).to.match(/Authorization: Bearer/);
      expect(body).to.not.have.property('checks');
      for (const secret of [WORKER_ID, hostname(), 'pve-rack4', 'pve-rack5', '10.1.4.2', '/etc/pvep']) expect(res.body, secret).to.not.contain(secret);
    });

    it('with a token /readyz gives every check: the workers, their hosts, the nodes and why each failed', async () => {
      await unhealthyWithAWorker();
      const res = await get('/readyz', web.token);
      expect(res.statusCode).to.equal(503);
      const body = res.json<Answer>();
      expect(body.reason).to.match(/^the workers cannot provision: .*pve-rack4: Unreachable \(connect ECONNREFUSED 10\.1\.4\.2:8006\); pve-rack5: CredentialsUnavailable/);
      expect(body.checks?.workers.workers).to.deep.equal([{ id: WORKER_ID, host: hostname() }]);
      expect(body.checks?.health.nodes).to.deep.equal(unfit);
    });

    it('a token not in the file is a 401, not the detail', async () => {
      await unhealthyWithAWorker();
      const res = await get('/readyz', 'not-a-token');
      expect(res.statusCode).to.equal(401);
      expect(res.body).to.not.contain(WORKER_ID);
    });

    it('a ready service says so without a token, and nothing more', async () => {
      beat = startHeartbeat(web.redis, web.prefix, WORKER_ID, 2);
      await beat.first;
      await writeLastHealth(web.redis, web.prefix, [{ node: 'pve-rack4', ok: true, reasons: [] }]);
      const res = await get('/readyz');
      expect(res.statusCode).to.equal(200);
      expect(res.json<Answer>()).to.deep.equal({ ready: true, details: res.json<Answer>().details });
    });

    it('/metrics needs the token', async () => {
      await unhealthyWithAWorker();
      expect((await get('/metrics')).statusCode).to.equal(401);
      const scraped = await get('/metrics', web.token);
      expect(scraped.statusCode).to.equal(200);
      expect(scraped.body).to.contain('node="pve-rack4"');
    });
  });

  describe('with http.metricsAuth false', () => {
    beforeEach(async () => {
      web = await buildTestWeb({ metricsAuth: false });
    });

    it('both are open, the checks included', async () => {
      await unhealthyWithAWorker();
      const ready = await get('/readyz');
      expect(ready.json<Answer>().checks?.workers.workers?.[0]?.id).to.equal(WORKER_ID);
      expect((await get('/metrics')).statusCode).to.equal(200);
    });
  });
});
