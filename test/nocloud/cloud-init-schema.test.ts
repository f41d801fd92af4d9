// SPEC 20: Debian's cloud-init accepts the user-data and vendor-data the
// seed carries by default (`cloud-init schema` exits 1 on any error).
import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildSeed } from '../../src/nocloud/seed.js';
import { mustRun, runTool, withTempDir, writeSource } from './tools.js';

describe('seed cloud-config checked by cloud-init schema (SPEC 20)', function () {
  let dir = '';
  let cleanup: () => Promise<void> = () => Promise.resolve();

  before(async function () {
    ({ dir, cleanup } = await withTempDir('seed-schema-'));
    await writeSource(buildSeed({ name: 'schema-check', installGuestAgent: true, joliet: false }), join(dir, 'seed.iso'));
  });
  after(() => cleanup());

  for (const file of ['user-data', 'vendor-data']) {
    it(`accepts the default ${file} as read from the image`, async function () {
      const path = join(dir, file);
      await writeFile(path, mustRun('bsdtar', ['-xOf', join(dir, 'seed.iso'), file]));
      const result = runTool('cloud-init', ['schema', '--config-file', path]);
      expect(result.status, `${result.stdout.toString('utf8')}${result.stderr}`).to.equal(0);
      expect(result.stdout.toString('utf8')).to.include('Valid cloud-config');
    });
  }

  it('refuses a broken cloud-config, so the checks above can fail', async function () {
    const path = join(dir, 'broken');
    await writeFile(path, '#cloud-config\nruncmd: 7\n');
    expect(runTool('cloud-init', ['schema', '--config-file', path]).status).to.equal(1);
  });
});
