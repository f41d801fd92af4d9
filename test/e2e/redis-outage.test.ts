// SPEC 24, Redis unreachable: `pve-provisioner all` runs as a child
// process on the simulator against a redis-server of its own. Redis is
// stopped: over a bounded window the process prints a handful of lines
// in words, no stack frames; the API answers 503 with Retry-After, /readyz
// 503 with the reason in words, /healthz still 200, and a request refused
// then was not accepted. Redis is started again: the same process accepts
// a create and runs it to completion, without a restart.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { NO_CLUSTER_ENV, uniquePrefix } from '../support/redis.js';
import { freePort } from '../support/free-port.js';
import { startOwnRedis, type OwnRedis } from './redis-server.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** How long the test watches the output while Redis is down. */
const OUTAGE_WINDOW_MS = 12_000;
/**
 * Lines (other than fastify's request lines) the process may print in that window: the connection's
 * reports, and one line from each limit shared through Redis (the request budget, the daemon slots of
 * SPEC 28) that it now goes by its own bound.
 */
const MOST_LINES = 8;

interface Answer {
  status: number;
  retryAfter: string | null;
  body: Record<string, unknown>;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('Redis unreachable and back, one `all` process (SPEC 24)', function () {
  this.timeout(180_000);
  let redis: OwnRedis;
  let cwd: string;
  let child: ChildProcess | undefined;
  let exited: Promise<number | null>;
  let base: string;
  let output = '';

  const call = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const token = readFileSync(join(cwd, 'var', 'api-tokens'), 'utf8').trim();
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
  };

  /** Polls until check passes; fails with the last value after timeoutMs. */
  const eventually = async <T>(what: string, get: () => Promise<T>, check: (value: T) => boolean, timeoutMs: number): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    let last: T | undefined;
    while (Date.now() < deadline) {
      last = await get();
      if (check(last)) return last;
      await sleep(250);
    }
    throw new Error(`${what} within ${timeoutMs} ms; last: ${JSON.stringify(last)}\n${output}`);
  };

  const waitForOutput = (text: string, timeoutMs: number): Promise<void> =>
    eventually(`"${text}" in the output`, () => Promise.resolve(output.includes(text)), Boolean, timeoutMs).then(() => undefined);

  before(async () => {
    redis = await startOwnRedis();
    cwd = mkdtempSync(join(tmpdir(), 'pvep-outage-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HTTP_PORT: String(port),
      SIM_PORT: String(await freePort()),
      REDIS_URL: redis.url,
      ...NO_CLUSTER_ENV,
      REDIS_PREFIX: uniquePrefix('outage'),
      SIM_TIME_SCALE: '0.02',
      BUDGETS_FIRST_ADDRESS_SECONDS: '0.6',
      LOG_LEVEL: 'info',
      // Longer than the stop below may take: the grace is for running jobs,
      // and none runs when it stops with Redis down.
      JOBS_SHUTDOWN_GRACE_SECONDS: '120',
    };
    delete env.PVE_PROVISIONER_CONFIG;
    const tsx = pathToFileURL(join(repo, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
    const started = spawn(process.execPath, ['--import', tsx, join(repo, 'src', 'cli.ts'), 'all'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    exited = new Promise((resolve) => started.once('exit', (code) => resolve(code)));
    const collect = (chunk: Buffer): void => {
      output += chunk.toString();
    };
    started.stdout.on('data', collect);
    started.stderr.on('data', collect);
    await waitForOutput('workers started', 60_000);
  });

  after(async () => {
    if (child !== undefined && child.exitCode === null) child.kill('SIGKILL');
    await redis.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('says Redis is down in a handful of lines in words, never a stack frame', async () => {
    const before = output.length;
    await redis.stop();
    await sleep(OUTAGE_WINDOW_MS);
    const printed = output.slice(before).split('\n').filter((line) => line.trim() !== '');
    expect(printed.filter((line) => /^\s+at /.test(line)), 'stack frames').to.deep.equal([]);
    expect(printed.filter((line) => line.includes('"stack"')), 'stacks inside log lines').to.deep.equal([]);
    const ours = printed.filter((line) => !line.includes('"reqId"'));
    expect(ours.length, ours.join('\n')).to.be.at.least(1).and.at.most(MOST_LINES);
    // The first line about the connection (the Proxmox request budget may say, beside it, that it paces alone).
    const first = ours.map((line) => JSON.parse(line) as { msg?: string }).find((entry) => entry.msg?.startsWith('Redis at ')) ?? {};
    expect(first.msg).to.match(new RegExp(`^Redis at 127\\.0\\.0\\.1:${redis.port} is not reachable \\(connection (refused|closed|reset)\\)`)).and.to.contain('REDIS_URL');
    for (const line of ours) expect(() => JSON.parse(line) as unknown, line).to.not.throw();
    expect(ours.filter((line) => line.includes('maxRetriesPerRequest')), 'ioredis\'s own words').to.deep.equal([]);
  });

  it('answers 503 with Retry-After and the reason in words; /readyz too; /healthz still 200', async () => {
    const refused = await call('POST', '/v1/vms', { name: 'during-outage' });
    expect(refused.status).to.equal(503);
    expect(Number(refused.retryAfter)).to.be.within(1, 10);
    expect(refused.body.error).to.equal('RedisUnavailable');
    expect(refused.body.message).to.match(new RegExp(`^Redis at 127\\.0\\.0\\.1:${redis.port} is not reachable \\(connection refused\\)`));
    for (const path of ['/v1/vms', '/v1/vms/during-outage', '/v1/jobs/x']) expect((await call('GET', path)).status, path).to.equal(503);

    // The reason naming Redis's address is the detail, for a token holder (issue 25).
    const ready = await call('GET', '/readyz');
    expect(ready.status).to.equal(503);
    expect(ready.retryAfter).to.match(/^\d+$/);
    const report = ready.body as { ready: boolean; reason: string };
    expect(report.ready).to.equal(false);
    expect(report.reason).to.match(/^Redis at 127\.0\.0\.1:\d+ is not reachable \(connection refused\): check that redis-server runs there/);
    expect(JSON.stringify(report)).to.not.match(/maxRetriesPerRequest|ioredis|Stream isn't writeable|ECONNREFUSED/);

    expect((await fetch(`${base}/healthz`)).status).to.equal(200);
  });

  it('once Redis is back, the same process accepts a create and runs it to completion; the refused one was not accepted', async () => {
    await redis.start();
    const accepted = await eventually('POST /v1/vms accepted', () => call('POST', '/v1/vms', { name: 'after-outage' }), (a) => a.status === 202, 30_000);
    const jobId = String(accepted.body.jobId);
    const job = await eventually(
      'the create completed',
      () => call('GET', `/v1/jobs/${encodeURIComponent(jobId)}?waitSeconds=20`),
      (a) => a.body.state === 'completed' || a.body.state === 'failed',
      90_000,
    );
    expect(job.body.state, JSON.stringify(job.body)).to.equal('completed');
    expect((job.body.result as { address?: string }).address).to.match(/^\d+\.\d+\.\d+\.\d+$/);
    expect((await call('GET', '/v1/vms/during-outage')).status).to.equal(404);
    expect(output).to.match(/Redis at 127\.0\.0\.1:\d+ is reachable again/);
    expect((await fetch(`${base}/readyz`)).status).to.equal(200);
  });

  it('stops on SIGTERM with status 0, also while Redis is down, without waiting out the grace period when no job runs', async () => {
    await redis.stop();
    await waitForOutput('still not reachable', 30_000);
    const stopping = Date.now();
    child?.kill('SIGTERM');
    expect(await exited).to.equal(0);
    expect(Date.now() - stopping, output).to.be.below(20_000);
    expect(output).to.not.contain('did not finish within the grace period');
  });
});
