// A root directory over several sectors (ECMA-119 6.8.1.1: records never
// cross a sector), read back by the tools others wrote, in both trees.
import { expect } from 'chai';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { buildIsoImage, MAX_NAME_BYTES, type IsoFile } from '../../src/iso9660/index.js';
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

// One small file: also the smallest image, which libarchive reads only when padded to 24 sectors.
describe('ISO 9660 image with the longest name it takes, read by other tools', function () {
  const name = `${'long-name.'.repeat(12)}yaml-1234`.slice(0, MAX_NAME_BYTES);
  let iso = '';
  let cleanup: () => Promise<void> = () => Promise.resolve();

  before(async function () {
    let dir: string;
    ({ dir, cleanup } = await withTempDir('iso-long-'));
    iso = join(dir, 'long.iso');
    await writeSource(buildIsoImage([{ name, data: Buffer.from('long\n') }], { volumeId: 'long', joliet: false }), iso);
  });
  after(() => cleanup());

  it(`keeps a ${MAX_NAME_BYTES}-byte Rock Ridge name whole for pycdlib, isoinfo and bsdtar`, function () {
    expect(name.length).to.equal(MAX_NAME_BYTES);
    for (const view of [pycdlibView(iso, 'rr'), isoinfoView(iso, '-R'), bsdtarView(iso)]) {
      expect([...view.keys()]).to.deep.equal([name]);
      expect(view.get(name)?.toString()).to.equal('long\n');
    }
  });

  it('refuses a name one byte longer, saying so', function () {
    expect(() => buildIsoImage([{ name: `${name}x`, data: Buffer.alloc(1) }], { volumeId: 'v', joliet: false })).to.throw(/longer than 128 bytes/);
  });
});
