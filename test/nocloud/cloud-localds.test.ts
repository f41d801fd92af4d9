// SPEC 20: our seed against the one cloud-localds (cloud-image-utils, via
// genisoimage) makes from the same files: the same label, the same files
// under the same Rock Ridge names, the same level-1 names in the primary
// tree, and with Joliet the same Joliet names. cloud-localds always adds
// Joliet, so without it only the Rock Ridge and primary views compare.
import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildSeed, type SeedInput } from '../../src/nocloud/seed.js';
import { blkidProbe, isoinfoPrimaryNames, pycdlibView, type FileView } from './readers.js';
import { mustRun, withTempDir, writeSource } from './tools.js';

const INPUT: Omit<SeedInput, 'joliet'> = {
  name: 'compare-me',
  userData: '#cloud-config\npackages: [htop]\n',
  networkConfig: 'version: 2\nethernets:\n  eth0:\n    dhcp4: true\n',
  installGuestAgent: true,
};

function entries(view: FileView): [string, string][] {
  return [...view.entries()].map(([name, bytes]): [string, string] => [name, bytes.toString('hex')]).sort();
}

for (const joliet of [false, true]) {
  describe(`seed ISO compared with cloud-localds, ${joliet ? 'with' : 'without'} Joliet (SPEC 20)`, function () {
    let ours = '';
    let theirs = '';
    let cleanup: () => Promise<void> = () => Promise.resolve();

    before(async function () {
      let dir: string;
      ({ dir, cleanup } = await withTempDir('seed-localds-'));
      ours = join(dir, 'ours.iso');
      theirs = join(dir, 'theirs.iso');
      await writeSource(buildSeed({ ...INPUT, joliet }), ours);
      // The same files, as our image carries them (read back by libarchive).
      for (const name of ['meta-data', 'user-data', 'vendor-data', 'network-config']) {
        await writeFile(join(dir, name), mustRun('bsdtar', ['-xOf', ours, name]));
      }
      mustRun('cloud-localds', [
        '-V', join(dir, 'vendor-data'),
        '-N', join(dir, 'network-config'),
        theirs,
        join(dir, 'user-data'),
        join(dir, 'meta-data'),
      ]);
    });
    after(() => cleanup());

    it('has the same blkid type and label', function () {
      const [a, b] = [blkidProbe(ours), blkidProbe(theirs)];
      expect([a.TYPE, a.LABEL]).to.deep.equal([b.TYPE, b.LABEL]);
    });

    it('has the same files, name by name and byte by byte, under Rock Ridge', function () {
      const theirView = pycdlibView(theirs, 'rr');
      expect(theirView.size).to.equal(4);
      expect(entries(pycdlibView(ours, 'rr'))).to.deep.equal(entries(theirView));
    });

    it('has the same level-1 names in the primary tree', function () {
      expect(isoinfoPrimaryNames(ours)).to.deep.equal(isoinfoPrimaryNames(theirs));
    });

    if (joliet) {
      it('has the same files under Joliet', function () {
        expect(entries(pycdlibView(ours, 'joliet'))).to.deep.equal(entries(pycdlibView(theirs, 'joliet')));
      });
    } else {
      it('has no Joliet descriptor when Joliet is off', function () {
        expect(mustRun('isoinfo', ['-d', '-i', ours]).toString('utf8')).to.include('NO Joliet present');
      });
    }
  });
}
