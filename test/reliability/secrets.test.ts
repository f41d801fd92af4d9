// SPEC 22 "Secrets": a sentinel Proxmox token (in the file proxmox.tokenFile
// names), a sentinel API bearer token and a sentinel Bull Board password
// never appear in logs, in Redis (every key and value under the prefix:
// job data, logs, results, failures, stack traces), in API answers, in
// Bull Board pages and API, or in errors, while jobs complete, fail on
// answers that echo the token, and callers knock with wrong credentials.
import { inspect } from 'node:util';
import { expect } from 'chai';
import type { InjectOptions } from 'fastify';
import { snapshotPrefix } from './redis-snapshot.js';
import { newSentinels, startSecretsStack, type SecretsStack, type Sentinels } from './secrets-stack.js';

/** Which sentinels (or a 16-character piece of one) appear in the text. */
function leaked(text: string, sentinels: Sentinels): string[] {
  const pieces: [string, string][] = [
    ['proxmox token secret', sentinels.proxmoxSecret],
    ['API token', sentinels.apiToken],
    ['board password', sentinels.boardPassword],
  ];
  return pieces.filter(([, secret]) => text.includes(secret) || text.includes(secret.slice(-16))).map(([what]) => what);
}

describe('secrets never leak (SPEC 22, SPEC 9, SPEC 18)', function () {
  this.timeout(90_000);
  let stack: SecretsStack;
  const answers: string[] = [];
  const jobIds: string[] = [];

  const bearer = (): Record<string, string> => ({ authorization: `Bearer ${stack.sentinels.apiToken}` });
  const board = (password = stack.sentinels.boardPassword): Record<string, string> => ({ authorization: `Basic ${Buffer.from(`ops:${password}`).toString('base64')}` });

  async function call(options: InjectOptions): Promise<{ status: number; body: string }> {
    const res = await stack.app.inject(options);
    answers.push(`${options.method ?? 'GET'} ${options.url as string} -> ${res.statusCode} ${JSON.stringify(res.headers)} ${res.body}`);
    return { status: res.statusCode, body: res.body };
  }

  async function enqueueAndWait(url: string, payload?: object): Promise<{ state: string; failedReason?: string }> {
    const accepted = await call({ method: 'POST', url, headers: bearer(), ...(payload ? { payload } : {}) });
    expect(accepted.status, accepted.body).to.equal(202);
    const { jobId } = JSON.parse(accepted.body) as { jobId: string };
    jobIds.push(jobId);
    const done = await call({ method: 'GET', url: `/v1/jobs/${encodeURIComponent(jobId)}?waitSeconds=30`, headers: bearer() });
    return JSON.parse(done.body) as { state: string; failedReason?: string };
  }

  /** A 500 whose message echoes the token the way a misconfigured proxy might. */
  function echoFault(path: string): object {
    const { proxmoxToken, proxmoxSecret } = stack.sentinels;
    return { errors: [{ path, rate: 1, status: 500, message: `proxy says: Authorization: PVEAPIToken=${proxmoxToken} (secret ${proxmoxSecret}) not accepted here` }] };
  }

  before(async () => {
    stack = await startSecretsStack(newSentinels());
  });
  after(async () => {
    await stack?.close();
  });

  it('drives jobs that complete, fail on echoed tokens, and callers with wrong credentials', async () => {
    const ok = await enqueueAndWait('/v1/vms', { name: 'sec-ok', waitForAddress: false });
    expect(ok.state, JSON.stringify(ok)).to.equal('completed');
    expect((await enqueueAndWait('/v1/vms/sec-ok/check')).state).to.equal('completed');

    stack.sim.sim.faults.replace(echoFault('/clone$'));
    const failed = await enqueueAndWait('/v1/vms', { name: 'sec-fail', waitForAddress: false });
    expect(failed.state).to.equal('failed');
    expect(failed.failedReason, 'the failure still says what happened').to.match(/proxy says/);
    stack.sim.sim.faults.replace({});

    // Wrong credentials that contain the right ones: an echo would show them.
    expect((await call({ method: 'GET', url: '/v1/vms', headers: { authorization: `Bearer ${stack.sentinels.apiToken}x` } })).status).to.equal(401);
    expect((await call({ method: 'GET', url: '/admin/queues/api/queues', headers: board(`${stack.sentinels.boardPassword}x`) })).status).to.equal(401);
    expect((await call({ method: 'POST', url: '/v1/vms', headers: bearer(), payload: { name: 'sec-bad', cores: stack.sentinels.apiToken } })).status).to.equal(400);
  });

  it('the HTTP client never puts the token in an error, even when the server echoes it (SPEC 18)', async () => {
    stack.sim.sim.faults.replace(echoFault('/version$'));
    const err = await stack.api.version().then(
      () => undefined,
      (e: unknown) => e,
    );
    stack.sim.sim.faults.replace({});
    expect(err, 'the call fails').to.be.instanceOf(Error);
    const shown = [String(err), (err as Error).stack ?? '', inspect(err, { depth: 8, showHidden: true }), JSON.stringify(err)].join('\n');
    expect(leaked(shown, stack.sentinels)).to.deep.equal([]);
  });

  it('API answers, Bull Board pages and its API show no secret', async () => {
    const urls = ['/v1/vms', '/v1/vms/sec-ok', '/v1/vms/sec-fail', '/v1/openapi.json', '/healthz', '/readyz', '/metrics'];
    for (const url of urls) await call({ method: 'GET', url, headers: bearer() });
    for (const id of jobIds) await call({ method: 'GET', url: `/v1/jobs/${encodeURIComponent(id)}`, headers: bearer() });
    const boardUrls = ['/admin/queues', '/admin/queues/api/queues', '/admin/queues/api/redis/stats', '/admin/queues/api/job-schedulers'];
    for (const status of ['latest', 'completed', 'failed', 'waiting', 'delayed']) boardUrls.push(`/admin/queues/api/queues?activeQueue=vm&status=${status}`);
    for (const id of jobIds) boardUrls.push(`/admin/queues/api/queues/vm/${encodeURIComponent(id)}`, `/admin/queues/api/queues/vm/${encodeURIComponent(id)}/logs`);
    for (const url of boardUrls) {
      const res = await call({ method: 'GET', url, headers: board() });
      expect(res.status, url).to.equal(200);
    }
    const failedPage = answers.find((a) => a.includes('status=failed'));
    expect(failedPage, 'the board lists the failed job').to.contain('sec-fail');
    expect(leaked(answers.join('\n'), stack.sentinels)).to.deep.equal([]);
  });

  it('no key or value under the prefix in Redis holds a secret (job data, logs, results, failures)', async () => {
    const snapshot = await snapshotPrefix(stack.redis, stack.prefix);
    const text = JSON.stringify([...snapshot]);
    expect(text, 'the scan reached the failed job').to.contain('proxy says');
    expect(leaked(text, stack.sentinels)).to.deep.equal([]);
  });

  it('no log line holds a secret', () => {
    const logs = stack.logText();
    expect(logs, 'the Proxmox calls were logged').to.match(/"path":"[^"]*clone/);
    expect(leaked(logs, stack.sentinels)).to.deep.equal([]);
  });
});
