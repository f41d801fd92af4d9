// A root directory over several sectors (ECMA-119 6.8.1.1: records never
// cross a sector), read back by the tools others wrote, in both trees.
import { expect } from 'chai';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { buildIsoImage, type IsoFile } from '../../src/iso9660/index.js';
import { bsdtarView, isoinfoView, pycdlibView, sevenZipView, xorrisoView, type FileView } from '../nocloud/readers.js';
import { withTempDir, writeSource } from '../nocloud/tools.js';

const FILES: IsoFile[] = Array.from({ length: 40 }, (_, i) => ({
  name: `Mixed.Case-file-${String(i).padStart(2, '0')}.yaml`,
  data: Buffer.from(`n: ${i}\n`.repeat(i * 60)),
}));

function expectAll(view: FileView): void {
  expect([...view.keys()].sort()).to.deep.equal(FILES.map((f) => f.name).sort());
  for (const f of FILES) expect(view.get(f.name)?.equals(f.data), f.name).to.be.true;
}

describe('ISO 9660 image with a directory over several sectors, read by other tools', function () {
  let iso = '';
  let work = '';
  let cleanup: () => Promise<void> = () => Promise.resolve();

  before(async function () {
    ({ dir: work, cleanup } = await withTempDir('iso-many-'));
    iso = join(work, 'many.iso');
    await writeSource(buildIsoImage(FILES, { volumeId: 'many', joliet: true }), iso);
  });
  after(() => cleanup());

  it('pycdlib reads every Rock Ridge and Joliet name and file', function () {
    expectAll(pycdlibView(iso, 'rr'));
    expectAll(pycdlibView(iso, 'joliet'));
  });

  it('isoinfo reads every name and file with -R and with -J', function () {
    expectAll(isoinfoView(iso, '-R'));
    expectAll(isoinfoView(iso, '-J'));
  });

  it('bsdtar, 7z and xorriso read every name and file', async function () {
    expectAll(bsdtarView(iso));
    await mkdir(join(work, 'a'));
    expectAll(await sevenZipView(iso, join(work, 'a')));
    await mkdir(join(work, 'b'));
    expectAll(await xorrisoView(iso, join(work, 'b')));
  });
});
