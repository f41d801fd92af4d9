// SPEC 20: Linux's isofs, the reader cloud-init really uses. Mounting needs
// root, loop devices and the iso9660 module; where the machine refuses
// (a container usually does), the test is skipped and says why. It never
// pretends: a skip here means the kernel was not asked.
import { expect } from 'chai';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildSeed } from '../../src/nocloud/seed.js';
import { runTool, withTempDir, writeSource } from './tools.js';

for (const joliet of [false, true]) {
  describe(`seed ISO mounted by the Linux kernel, ${joliet ? 'with' : 'without'} Joliet (SPEC 20)`, function () {
    it('shows meta-data, user-data and vendor-data by their exact names (skipped where loop mounts are refused)', async function () {
      const { dir, cleanup } = await withTempDir('seed-mount-');
      try {
        const iso = join(dir, 'seed.iso');
        const mnt = join(dir, 'mnt');
        await mkdir(mnt);
        await writeSource(buildSeed({ name: 'mounted', userData: '#cloud-config\n{}\n', installGuestAgent: true, joliet }), iso);
        const mounted = runTool('mount', ['-t', 'iso9660', '-o', 'loop,ro', iso, mnt]);
        if (mounted.status !== 0) {
          process.stderr.write(`      kernel mount skipped: mount -t iso9660 -o loop,ro refused here: ${mounted.stderr.trim().split('\n')[0] ?? ''}\n`);
          this.skip();
        }
        try {
          expect((await readdir(mnt)).sort()).to.deep.equal(['meta-data', 'user-data', 'vendor-data']);
          expect(await readFile(join(mnt, 'meta-data'), 'utf8')).to.equal('instance-id: "mounted"\nlocal-hostname: "mounted"\n');
        } finally {
          runTool('umount', [mnt]);
        }
      } finally {
        await cleanup();
      }
    });
  });
}
