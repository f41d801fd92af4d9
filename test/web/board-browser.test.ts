// SPEC 6 and SPEC 1 (progress and one log line per step, visible in Bull
// Board): the whole service in-process on the simulator (startAll), a
// create job run to its address, then Bull Board driven in Debian's
// Chromium through playwright-core. Saves screenshots under test-output/web/.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startAll, type RunningAll } from '../../src/cli/all.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { REDIS_URL, deletePrefix, uniquePrefix } from './helpers.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const OUTPUT = join('test-output', 'web');
const USER_DATA_SENTINEL = 'sentinel-user-data-7f3a';

describe('Bull Board in a browser (SPEC 6)', function () {
  this.timeout(90_000);
  let dir: string;
  let prefix: string;
  let running: RunningAll;
  let browser: Browser;
  let jobId: string;
  let address: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pvep-board-'));
    prefix = uniquePrefix('board');
    mkdirSync(OUTPUT, { recursive: true });
    const config = loadConfig({
      env: {},
      overrides: {
        redis: { url: REDIS_URL, prefix },
        sim: { timeScale: 0.02 },
        proxmox: { tokenFile: join(dir, 'proxmox-token') },
        http: { apiTokensFile: join(dir, 'api-tokens'), boardUsersFile: join(dir, 'board-users') },
      },
    });
    const started = await startAll(config, silentLogger(), { metrics: createMetrics(), webPort: 0, simPort: 0 });
    if (started === undefined) throw new Error('startAll refused to start');
    running = started;
    const token = readFileSync(join(dir, 'api-tokens'), 'utf8').trim();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const userData = `#cloud-config\n# ${USER_DATA_SENTINEL}\n`;
    const created = await fetch(`${running.web.url}/v1/vms`, { method: 'POST', headers, body: JSON.stringify({ name: 'board-vm', userData }) });
    jobId = ((await created.json()) as { jobId: string }).jobId;
    const job = (await (await fetch(`${running.web.url}/v1/jobs/${jobId}?waitSeconds=60`, { headers })).json()) as { state: string; result?: { address?: string } };
    expect(job.state, 'the create job finished').to.equal('completed');
    address = job.result?.address ?? '';
    expect(address).to.match(/^\d+\.\d+\.\d+\.\d+$/);
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  });

  after(async () => {
    await browser?.close();
    await running?.close();
    const redis = new Redis(REDIS_URL);
    await deletePrefix(redis, prefix);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  function boardLogin(): { username: string; password: string } {
    const line = readFileSync(join(dir, 'board-users'), 'utf8').trim();
    const colon = line.indexOf(':');
    return { username: line.slice(0, colon), password: line.slice(colon + 1) };
  }

  async function pageAs(credentials?: { username: string; password: string }): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, ...(credentials ? { httpCredentials: credentials } : {}) });
    return context.newPage();
  }

  it('refuses the board without credentials and with a wrong password', async () => {
    // Headless Chromium turns a 401 into a navigation error; its request API shows the answer itself.
    const anonymous = await pageAs();
    const refused = await anonymous.request.get(`${running.web.url}/admin/queues`);
    expect(refused.status()).to.equal(401);
    expect(refused.headers()['www-authenticate']).to.match(/^Basic realm=/);
    const wrong = await pageAs({ ...boardLogin(), password: 'not-the-password' });
    expect((await wrong.request.get(`${running.web.url}/admin/queues`)).status()).to.equal(401);
  });

  it('logs in with basic auth, lists both queues, and opens the finished create job with its progress and log lines', async () => {
    const page = await pageAs(boardLogin());
    const home = await page.goto(`${running.web.url}/admin/queues`);
    expect(home?.status()).to.equal(200);
    const sidebar = page.locator('nav, aside').first();
    await sidebar.getByText('vm', { exact: true }).waitFor();
    await sidebar.getByText('system', { exact: true }).waitFor();
    await page.screenshot({ path: join(OUTPUT, 'bull-board-queues.png') });

    await sidebar.getByText('vm', { exact: true }).click();
    await page.locator('a[href$="/queue/vm?status=completed"]').click();
    // The completed list shows the job's card; then its own page.
    await page.getByText(jobId, { exact: true }).first().waitFor();
    await page.goto(`${running.web.url}/admin/queues/queue/vm/${encodeURIComponent(jobId)}`);

    // The data tab shows the job's data with userData as its size only.
    await page.getByText('board-vm').first().waitFor();
    expect(await page.locator('body').innerText()).to.not.contain(USER_DATA_SENTINEL);

    await page.getByRole('tab', { name: 'Progress' }).click();
    // The progress panel holds {step: "address"}, the last step of a create.
    await page.getByRole('tabpanel').getByText('"address"').waitFor();
    await page.screenshot({ path: join(OUTPUT, 'bull-board-create-job-progress.png') });

    await page.getByRole('tab', { name: 'Logs' }).click();
    for (const step of ['step: cloned', 'step: seeded', 'step: configured', 'step: started', 'step: running', 'step: address']) {
      await page.getByText(step, { exact: false }).first().waitFor();
    }
    await page.getByText(address, { exact: false }).first().waitFor();
    await page.screenshot({ path: join(OUTPUT, 'bull-board-create-job-logs.png'), fullPage: true });
  });
});
