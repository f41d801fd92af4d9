// The README's curl example (SPEC 2, SPEC 6), run as it stands with the
// port changed, twice, against the web app on a real socket and a worker
// on the recording provider: both runs print the same job id and end with
// the job; the same block with another image prints the refusal
// naming the field instead of a blank job id and a 404; a key whose
// comment holds quotes and a backslash reaches the API as sent.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src/log.js';
import { startWorkerService, type WorkerService } from '../../src/worker/service.js';
import { RecordingProvider } from '../support/recording-provider.js';
import { fixtureKey } from '../support/ssh-keys.js';
import { readmeBlock as readmeShellBlock, readmeServiceEnv } from '../support/readme.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

function readmeBlock(port: number): string {
  return readmeShellBlock('readme-curl').replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`);
}

function runShell(script: string, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('sh', ['-ec', script], { cwd, timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
  });
}

describe("the README's curl example can be run twice (SPEC 2, SPEC 6)", function () {
  this.timeout(90_000);
  let web: TestWeb;
  let worker: WorkerService;
  let cwd: string;
  let port: number;

  before(async () => {
    // The images the walk's service block configures, which the block's create names.
    const { PROXMOX_IMAGES } = readmeServiceEnv();
    web = await buildTestWeb({}, PROXMOX_IMAGES === undefined ? {} : { env: { PROXMOX_IMAGES } });
    worker = await startWorkerService({ config: web.config, provider: new RecordingProvider(web.redis, web.prefix), logger: silentLogger(), schedule: false });
    await web.app.listen({ port: 0, host: '127.0.0.1' });
    port = (web.app.server.address() as AddressInfo).port;
    cwd = mkdtempSync(join(tmpdir(), 'pvep-readme-'));
    mkdirSync(join(cwd, 'var'));
    writeFileSync(join(cwd, 'var', 'api-tokens'), `${web.token}\n`, { mode: 0o600 });
  });
  after(async () => {
    await worker.close(1000);
    await web.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('prints the same job id both times, and the job each time', async () => {
    const block = readmeBlock(port);
    const outputs = [await runShell(block, cwd), await runShell(block, cwd)];
    const ids = outputs.map((out) => /^job (\S+)$/m.exec(out)?.[1]);
    expect(ids[0], outputs[0]).to.be.a('string').and.not.equal('');
    expect(ids[1], outputs[1]).to.equal(ids[0]);
    for (const out of outputs) expect(JSON.parse(out.slice(out.indexOf('\n') + 1)) as object).to.deep.include({ id: ids[0], state: 'completed' });
  });

  it('with another image it prints the refusal naming the field', async () => {
    const out = await runShell(readmeBlock(port).replace('image: "debian"', 'image: "shared"'), cwd);
    expect(out).to.match(/^refused: /);
    expect(out).to.include('"field":"image"');
    expect(out).not.to.include('\njob ');
  });

  it('builds its JSON safely: a key whose comment holds quotes and a backslash is sent as it is', async () => {
    const own = mkdtempSync(join(tmpdir(), 'pvep-readme-key-'));
    try {
      mkdirSync(join(own, 'var'));
      writeFileSync(join(own, 'var', 'api-tokens'), `${web.token}\n`, { mode: 0o600 });
      const key = `${fixtureKey('ed25519.pub').split(' ').slice(0, 2).join(' ')} alice "laptop" C:\\keys\\n`;
      writeFileSync(join(own, 'var', 'demo-key.pub'), `${key}\n`);
      const out = await runShell(readmeBlock(port).replace('"demo-1"', '"demo-quoted"'), own);
      expect(out, out).to.match(/^job \S+$/m);
      const job = JSON.parse(out.slice(out.indexOf('\n') + 1)) as { state: string; data: { sshKeys?: string[] } };
      expect(job.state).to.equal('completed');
      expect(job.data.sshKeys).to.deep.equal([key]);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });
});
