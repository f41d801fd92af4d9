// SPEC 6: `pve-provisioner web` and `all` exit 2 with the reason on
// stderr when they cannot start: stray arguments, a missing credentials
// file away from the simulator, a taken port.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { REDIS_URL, uniquePrefix } from '../support/redis.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsx = pathToFileURL(join(repo, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

function cli(args: string[], env: Record<string, string>, cwd: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', tsx, join(repo, 'src', 'cli.ts'), ...args],
      { cwd, env: { ...process.env, REDIS_URL, REDIS_PREFIX: uniquePrefix('cli'), LOG_LEVEL: 'warn', ...env }, timeout: 30_000 },
      (err, _stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stderr }),
    );
  });
}

describe('pve-provisioner web and all refuse to start with the reason (SPEC 6)', function () {
  this.timeout(60_000);
  let cwd: string;
  let busy: Server;
  let busyPort: number;
  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'pvep-cli-'));
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    busyPort = (busy.address() as { port: number }).port;
  });
  after(() => {
    busy.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('web with an argument exits 2', async () => {
    const { code, stderr } = await cli(['web', '--port', '1'], {}, cwd);
    expect(code).to.equal(2);
    expect(stderr.split('\n')[0]).to.equal('pve-provisioner web: unknown flag --port');
  });

  it('web against a real Proxmox with no tokens file exits 2 naming the key and the file, and creates nothing', async () => {
    const { code, stderr } = await cli(['web'], { PROXMOX_URL: 'https://pve.example:8006', HTTP_API_TOKENS_FILE: 'secrets/tokens' }, cwd);
    expect(code).to.equal(2);
    expect(stderr).to.contain('http.apiTokensFile').and.to.contain('secrets/tokens');
    expect(existsSync(join(cwd, 'secrets', 'tokens'))).to.equal(false);
  });

  it('all on a taken port exits 2 naming the port and HTTP_PORT', async () => {
    const { code, stderr } = await cli(['all'], { HTTP_PORT: String(busyPort), SIM_PORT: '0' }, cwd);
    expect(code).to.equal(2);
    expect(stderr).to.contain(`127.0.0.1:${busyPort} is in use`).and.to.contain('HTTP_PORT');
  });
});
