// SPEC 34 (issue 33), end to end over HTTP on the simulator: two tenants
// with their own tokens and webhook URLs. Neither sees, reads, checks,
// renews or deletes the other's names or jobs (404, never 403, so names
// do not leak), nor gets its webhooks; a `read` token cannot create; the
// admin token (a plain line, as every token was before tenants) sees and
// acts on both; each tenant's usage follows its VMs, and a VM gone gives
// its hold back.
import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/free-port.js';
import { eventually } from '../support/redis.js';
import { startServiceOnSim, type ServiceOnSim } from '../support/service-on-sim.js';
import { webhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const SECRET = 'tenants-e2e-webhook-secret-0123456789abcdef';
const TOKENS = {
  admin: 'admin-token-0123456789abcdefghijklmnopqrstuv',
  alpha: 'alpha-write-0123456789abcdefghijklmnopqrstuv',
  alphaRead: 'alpha-read-0123456789abcdefghijklmnopqrstuvw',
  beta: 'beta-write-0123456789abcdefghijklmnopqrstuvw',
};
type Who = keyof typeof TOKENS;

/** A tenant's webhook key as the operator hands it over: HMAC-SHA256(the webhook secret, `pvep-tenant:<name>`), hex. */
const tenantKey = (tenant: string): string => createHmac('sha256', SECRET).update(`pvep-tenant:${tenant}`).digest('hex');

interface JobAnswer {
  jobId: string;
  state?: string;
}

describe('two tenants over HTTP (SPEC 34)', function () {
  this.timeout(240_000);
  let dir: string;
  let service: ServiceOnSim;
  const receivers = {} as Record<'ops' | 'alpha' | 'beta', WebhookReceiver>;

  const call = (who: Who, method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(service.url(path), { method, headers: { authorization: `Bearer ${TOKENS[who]}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const json = async <T>(res: Response, status: number): Promise<T> => {
    const text = await res.text();
    expect(res.status, text).to.equal(status);
    return JSON.parse(text) as T;
  };
  const finished = async (who: Who, jobId: string): Promise<JobAnswer> =>
    eventually(async () => {
      const job = await json<JobAnswer>(await call(who, 'GET', `/v1/jobs/${encodeURIComponent(jobId)}?waitSeconds=30`), 200);
      return job.state === 'completed' || job.state === 'failed' ? job : undefined;
    }, 120_000);

  let alphaJob: string;
  let betaJob: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pvep-tenants-'));
    for (const name of ['ops', 'alpha', 'beta'] as const) {
      receivers[name] = webhookReceiver(await freePort(), name === 'ops' ? SECRET : tenantKey(name));
      await receivers[name].listen();
    }
    const tokensFile = join(dir, 'api-tokens');
    writeFileSync(
      tokensFile,
      [
        '# the operator: a plain line, the default tenant with the admin scope',
        TOKENS.admin,
        `${TOKENS.alpha} tenant=alpha scope=write vms=3 webhookUrl=${receivers.alpha.url}`,
        `${TOKENS.alphaRead} tenant=alpha scope=read`,
        `${TOKENS.beta} tenant=beta webhookUrl=${receivers.beta.url}`,
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    const secretFile = join(dir, 'webhook-secret');
    writeFileSync(secretFile, `${SECRET}\n`, { mode: 0o600 });
    service = await startServiceOnSim('tenants', { overrides: { http: { apiTokensFile: tokensFile }, webhooks: { url: receivers.ops.url, secretFile } } });
    alphaJob = (await json<JobAnswer>(await call('alpha', 'POST', '/v1/vms', { name: 'alpha-1' }), 202)).jobId;
    betaJob = (await json<JobAnswer>(await call('beta', 'POST', '/v1/vms', { name: 'beta-1' }), 202)).jobId;
    expect((await finished('alpha', alphaJob)).state).to.equal('completed');
    expect((await finished('beta', betaJob)).state).to.equal('completed');
  });

  after(async () => {
    await service?.close();
    for (const receiver of Object.values(receivers)) await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("neither tenant sees, reads, checks, renews or deletes the other's name or job: 404 everywhere", async () => {
    for (const [who, other, otherJob] of [['alpha', 'beta-1', betaJob], ['beta', 'alpha-1', alphaJob]] as const) {
      expect((await call(who, 'GET', `/v1/vms/${other}`)).status, `${who} GET ${other}`).to.equal(404);
      expect((await call(who, 'GET', `/v1/jobs/${encodeURIComponent(otherJob)}`)).status, `${who} GET its job`).to.equal(404);
      expect((await call(who, 'GET', `/v1/jobs/${encodeURIComponent(otherJob)}/events`)).status, `${who} its job's events`).to.equal(404);
      expect((await call(who, 'POST', `/v1/vms/${other}/check`)).status, `${who} check`).to.equal(404);
      expect((await call(who, 'PUT', `/v1/vms/${other}/lease`, { ttlSeconds: 600 })).status, `${who} renew`).to.equal(404);
      expect((await call(who, 'DELETE', `/v1/vms/${other}`)).status, `${who} delete`).to.equal(404);
      const page = await json<{ vms: { name: string }[] }>(await call(who, 'GET', '/v1/vms'), 200);
      expect(page.vms.map((vm) => vm.name), `${who}'s listing`).to.deep.equal([who === 'alpha' ? 'alpha-1' : 'beta-1']);
    }
    const taken = await json<{ error: string; message: string }>(await call('alpha', 'POST', '/v1/vms', { name: 'beta-1' }), 409);
    expect(taken.error).to.equal('NameTaken');
    expect(taken.message).to.not.contain('beta ');
    // Untouched by all of that.
    expect((await json<{ state: string }>(await call('beta', 'GET', '/v1/vms/beta-1'), 200)).state).to.equal('present');
  });

  it('a read token reads its tenant\'s names and cannot create, delete or check', async () => {
    expect((await json<{ name: string }>(await call('alphaRead', 'GET', '/v1/vms/alpha-1'), 200)).name).to.equal('alpha-1');
    expect((await call('alphaRead', 'GET', '/v1/vms/beta-1')).status).to.equal(404);
    expect((await json<{ error: string }>(await call('alphaRead', 'POST', '/v1/vms', { name: 'alpha-2' }), 403)).error).to.equal('Forbidden');
    expect((await call('alphaRead', 'DELETE', '/v1/vms/alpha-1')).status).to.equal(403);
    expect((await call('alphaRead', 'POST', '/v1/vms/alpha-1/check')).status).to.equal(403);
    expect((await call('admin', 'GET', '/v1/vms/alpha-2')).status).to.equal(404);
  });

  it('the admin token sees both tenants\' names and usage; each tenant its own', async () => {
    const page = await json<{ vms: { name: string }[] }>(await call('admin', 'GET', '/v1/vms'), 200);
    expect(page.vms.map((vm) => vm.name)).to.include.members(['alpha-1', 'beta-1']);
    expect((await call('admin', 'GET', '/v1/vms/beta-1')).status).to.equal(200);
    const me = await json<{ tenant: string; quotas: Record<string, number>; usage: Record<string, number> }>(await call('alpha', 'GET', '/v1/tenants/me'), 200);
    expect(me).to.deep.include({ tenant: 'alpha', quotas: { vms: 3 } });
    expect(me.usage.vms).to.equal(1);
    expect((await call('alpha', 'GET', '/v1/tenants')).status).to.equal(403);
    const all = await json<{ tenants: { tenant: string; usage: { vms: number } }[] }>(await call('admin', 'GET', '/v1/tenants'), 200);
    expect(all.tenants.map((t) => [t.tenant, t.usage.vms])).to.deep.include.members([['alpha', 1], ['beta', 1]]);
  });

  it("each tenant's webhook URL gets its own names' events alone, signed with its own key; the operator's gets all", async () => {
    const alphaReady = await receivers.alpha.waitFor((r) => r.body.event === 'vm.ready' && r.body.name === 'alpha-1', 60_000);
    expect(alphaReady.signatureValid).to.equal(true);
    const betaReady = await receivers.beta.waitFor((r) => r.body.event === 'vm.ready' && r.body.name === 'beta-1', 60_000);
    expect(betaReady.signatureValid).to.equal(true);
    await receivers.ops.waitFor((r) => r.body.name === 'alpha-1', 60_000);
    await receivers.ops.waitFor((r) => r.body.name === 'beta-1', 60_000);
    // The admin deletes beta's VM: beta hears of it, alpha does not; beta's hold goes with the VM.
    const deleted = await json<JobAnswer>(await call('admin', 'DELETE', '/v1/vms/beta-1'), 202);
    expect((await finished('admin', deleted.jobId)).state).to.equal('completed');
    const betaDeleted = await receivers.beta.waitFor((r) => r.body.event === 'vm.deleted' && r.body.name === 'beta-1', 60_000);
    expect(betaDeleted.signatureValid).to.equal(true);
    await receivers.ops.waitFor((r) => r.body.event === 'vm.deleted' && r.body.name === 'beta-1', 60_000);
    expect(receivers.alpha.received.map((r) => r.body.name)).to.not.include('beta-1');
    expect(receivers.beta.received.map((r) => r.body.name)).to.not.include('alpha-1');
    const usage = await json<{ usage: { vms: number } }>(await call('beta', 'GET', '/v1/tenants/me'), 200);
    expect(usage.usage.vms).to.equal(0);
  });
});
