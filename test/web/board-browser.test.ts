// SPEC 6 and SPEC 1 (progress as a number, the step in the job's data and one log line per step, visible in Bull
// Board): the whole service in-process on the simulator (startAll), a
// create job run to its address, then Bull Board driven in Debian's
// Chromium through playwright-core. Saves screenshots under test-output/web/.
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startAll, type RunningAll } from '../../src/cli/all.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { deletePrefix, REDIS_URL, uniquePrefix } from '../support/redis.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const CHROMIUM = '/usr/bin/chromium';
const OUTPUT = join('test-output', 'web');
// Duplicate (files), retry (refresh-cw), clean (trash), the queue's menu of pause, empty, obliterate and add (ellipsis).
const CHANGING_BUTTON = /lucide-(files|refresh-cw|trash|ellipsis|rotate|pencil|square-pen|pause|play|plus|eraser)|Retry|Clean|Duplicate|Promote|Pause|Empty|Obliterate|Add job/;
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
        http: { apiTokensFile: join(dir, 'api-tokens'), boardUsersFile: join(dir, 'board-users'), fingerprintKeyFile: join(dir, 'fingerprint-key') },
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
    // Never a silent skip: a machine without the browser fails here and says what to install.
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install the Debian package chromium (npm run test:setup does, as root)`);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
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

    // The data tab shows the job's data with userData as its size only, and the step it reached: address, a create's last.
    await page.getByText('board-vm').first().waitFor();
    expect(await page.locator('body').innerText()).to.not.contain(USER_DATA_SENTINEL);
    await page.getByRole('tabpanel').getByText('"address"').first().waitFor();
    // The progress is a number, which the board draws as a ring: 100 % at the last step.
    await page.locator('svg tspan', { hasText: /^100%$/ }).first().waitFor();
    await page.screenshot({ path: join(OUTPUT, 'bull-board-create-job-progress.png') });

    await page.getByRole('tab', { name: 'Logs' }).click();
    for (const step of ['step: cloned', 'step: seeded', 'step: configured', 'step: started', 'step: running', 'step: address']) {
      await page.getByText(step, { exact: false }).first().waitFor();
    }
    await page.getByText(address, { exact: false }).first().waitFor();
    await page.screenshot({ path: join(OUTPUT, 'bull-board-create-job-logs.png'), fullPage: true });
  });

  // The test's tsconfig has no DOM types: the little of a button element this reads.
  interface ButtonLike {
    textContent: string | null;
    querySelector(selector: string): { getAttribute(name: string): string | null } | null;
  }

  /** The board's buttons that change something, by their icon (lucide) or their words: none in read-only mode. */
  async function changingButtons(page: Page): Promise<string[]> {
    const buttons = await page.locator('button').evaluateAll((els: ButtonLike[]) => els.map((e) => `${e.textContent ?? ''} ${e.querySelector('svg')?.getAttribute('class') ?? ''}`));
    return buttons.filter((text) => CHANGING_BUTTON.test(text));
  }

  it('is read-only by default (SPEC 24): no changing buttons, and the changing calls are refused', async () => {
    const page = await pageAs(boardLogin());
    await page.goto(`${running.web.url}/admin/queues/queue/vm?status=completed`);
    await page.getByText(jobId, { exact: true }).first().waitFor();
    expect(await changingButtons(page), 'the queue page').to.deep.equal([]);
    await page.goto(`${running.web.url}/admin/queues/queue/vm/${encodeURIComponent(jobId)}`);
    await page.getByText('board-vm').first().waitFor();
    await page.screenshot({ path: join(OUTPUT, 'bull-board-read-only-job.png') });
    expect(await changingButtons(page), 'the job page').to.deep.equal([]);
    // The page's own session, as the UI would send it: refused whatever the UI shows.
    const answers = await page.evaluate(async (id) => {
      const calls: [string, string][] = [
        ['PUT', `api/queues/vm/${encodeURIComponent(id)}/clean`],
        ['POST', 'api/queues/vm/add'],
        ['PUT', 'api/queues/pause'],
        ['PUT', 'api/queues/vm/obliterate'],
      ];
      return Promise.all(
        calls.map(async ([method, path]) => {
          const res = await fetch(`/admin/queues/${path}`, { method, headers: { 'content-type': 'application/json' }, body: '{}' });
          return `${res.status} ${((await res.json()) as { message?: string }).message ?? ''}`;
        }),
      );
    }, jobId);
    for (const answer of answers) expect(answer).to.match(/^405 Bull Board is read-only/);
    const still = (await (await page.request.get(`${running.web.url}/admin/queues/api/queues/vm/${encodeURIComponent(jobId)}`)).json()) as { job?: { id?: string } };
    expect(still.job?.id).to.equal(jobId);
  });
});
