// The layout of a whole image, read with a few lines of offset arithmetic
// from ECMA-119; the readers others wrote are in test/nocloud and below.
import { expect } from 'chai';
import type { Readable } from 'node:stream';
import { buildIsoImage, DEFAULT_DATE, type IsoFile } from '../../src/iso9660/index.js';

const SECTOR = 2048;

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function file(name: string, text: string): IsoFile {
  return { name, data: Buffer.from(text) };
}

interface Record {
  offset: number;
  length: number;
  extent: number;
  dataLength: number;
  identifier: Buffer;
}

/** The records of a directory extent (ECMA-119 6.8.1.1: a 0 length byte means "next sector"). */
function records(image: Buffer, extent: number, dataLength: number): Record[] {
  const out: Record[] = [];
  const start = extent * SECTOR;
  let at = start;
  while (at < start + dataLength) {
    const length = image[at] ?? 0;
    if (length === 0) {
      at = start + (Math.floor((at - start) / SECTOR) + 1) * SECTOR;
      continue;
    }
    const idLength = image[at + 32] ?? 0;
    out.push({ offset: at, length, extent: image.readUInt32LE(at + 2), dataLength: image.readUInt32LE(at + 10), identifier: image.subarray(at + 33, at + 33 + idLength) });
    at += length;
  }
  return out;
}

function rootOf(image: Buffer, descriptorSector: number): { extent: number; dataLength: number } {
  const at = descriptorSector * SECTOR + 156;
  return { extent: image.readUInt32LE(at + 2), dataLength: image.readUInt32LE(at + 10) };
}

const SEED_FILES = [file('user-data', '#cloud-config\n{}\n'), file('meta-data', 'instance-id: a\n'), file('vendor-data', '#cloud-config\n')];

describe('ISO 9660 image layout', function () {
  // ECMA-119 6.2.1: sectors 0-15 are the system area; 8.4: the primary descriptor is at 16.
  it('leaves sectors 0-15 zero and puts the primary descriptor at 16, then the terminator (6.2.1, 8.3)', async function () {
    const image = await bytesOf(buildIsoImage(SEED_FILES, { volumeId: 'cidata', joliet: false }).open());
    expect(image.subarray(0, 16 * SECTOR).every((b) => b === 0)).to.be.true;
    expect(image.subarray(16 * SECTOR, 16 * SECTOR + 6).toString('latin1')).to.equal('\x01CD001');
    expect(image[17 * SECTOR]).to.equal(255);
  });

  it('puts the Joliet descriptor between the primary and the terminator when asked', async function () {
    const image = await bytesOf(buildIsoImage(SEED_FILES, { volumeId: 'cidata', joliet: true }).open());
    expect([image[16 * SECTOR], image[17 * SECTOR], image[18 * SECTOR]]).to.deep.equal([1, 2, 255]);
  });

  // ECMA-119 8.4.8: the volume space size is the image's sector count; libarchive reads 24 sectors ahead.
  it('declares its own size in sectors, at least 24 even for one tiny file (8.4.8)', async function () {
    const source = buildIsoImage([file('a', 'x')], { volumeId: 'cidata', joliet: false });
    const image = await bytesOf(source.open());
    expect(image.length).to.equal(source.size);
    expect(image.readUInt32LE(16 * SECTOR + 80) * SECTOR).to.equal(image.length);
    expect(image.length / SECTOR).to.be.at.least(24);
  });

  // ECMA-119 9.3: records ordered by identifier; "." and ".." first. 6.8.1.1: no record crosses a sector.
  it('lists ".", "..", then files sorted by identifier, none crossing a sector (9.3, 6.8.1.1)', async function () {
    const many = Array.from({ length: 40 }, (_, i) => file(`file-number-${String(39 - i).padStart(2, '0')}`, `content ${i}\n`));
    const image = await bytesOf(buildIsoImage(many, { volumeId: 'big', joliet: true }).open());
    for (const sector of [16, 17]) {
      const root = rootOf(image, sector);
      expect(root.dataLength).to.be.greaterThan(SECTOR); // the test needs a directory over two sectors
      const list = records(image, root.extent, root.dataLength);
      expect(list.length).to.equal(42);
      expect([...(list[0]?.identifier ?? [])]).to.deep.equal([0]);
      expect([...(list[1]?.identifier ?? [])]).to.deep.equal([1]);
      const ids = list.slice(2).map((r) => r.identifier);
      expect(ids).to.deep.equal([...ids].sort((a, b) => Buffer.compare(a, b)));
      for (const r of list) expect(Math.floor(r.offset / SECTOR)).to.equal(Math.floor((r.offset + r.length - 1) / SECTOR));
    }
  });

  // ECMA-119 9.1.3, 9.1.4: each file's extent starts a sector, holds its exact length, zero padded.
  it('starts every file on a sector with its exact length and zero padding (9.1.3, 9.1.4)', async function () {
    const image = await bytesOf(buildIsoImage(SEED_FILES, { volumeId: 'cidata', joliet: false }).open());
    const root = rootOf(image, 16);
    for (const r of records(image, root.extent, root.dataLength).slice(2)) {
      const data = image.subarray(r.extent * SECTOR, r.extent * SECTOR + r.dataLength).toString();
      expect(SEED_FILES.map((f) => f.data.toString())).to.include(data);
      expect(image.subarray(r.extent * SECTOR + r.dataLength, (r.extent + 1) * SECTOR).every((b) => b === 0)).to.be.true;
    }
  });

  // SUSP 5.3, 5.1, 5.5: SP first in the root "." record, and its CE reaches the ER entry.
  it('starts the root "." System Use with SP and reaches ER through CE (SUSP 5.1, 5.3, 5.5)', async function () {
    const image = await bytesOf(buildIsoImage(SEED_FILES, { volumeId: 'cidata', joliet: false }).open());
    const root = rootOf(image, 16);
    const self = records(image, root.extent, root.dataLength)[0];
    if (self === undefined) throw new Error('no "." record');
    const systemUse = image.subarray(self.offset + 34, self.offset + self.length);
    expect([...systemUse.subarray(0, 7)]).to.deep.equal([0x53, 0x50, 7, 1, 0xbe, 0xef, 0]);
    const ce = systemUse.indexOf('CE');
    expect(ce).to.be.greaterThan(0);
    const block = systemUse.readUInt32LE(ce + 4);
    const offset = systemUse.readUInt32LE(ce + 12);
    const length = systemUse.readUInt32LE(ce + 20);
    const er = image.subarray(block * SECTOR + offset, block * SECTOR + offset + length);
    expect(er.subarray(0, 2).toString()).to.equal('ER');
    expect(er.subarray(8, 18).toString()).to.equal('RRIP_1991A');
  });

  it('uses a fixed date unless given one, so the same input gives the same bytes', async function () {
    const a = await bytesOf(buildIsoImage(SEED_FILES, { volumeId: 'cidata', joliet: true }).open());
    const b = await bytesOf(buildIsoImage(SEED_FILES, { volumeId: 'cidata', joliet: true, date: DEFAULT_DATE }).open());
    const c = await bytesOf(buildIsoImage(SEED_FILES, { volumeId: 'cidata', joliet: true, date: new Date(Date.UTC(2030, 5, 1)) }).open());
    expect(a.equals(b)).to.be.true;
    expect(c.subarray(16 * SECTOR + 813, 16 * SECTOR + 817).toString()).to.equal('2030');
    expect(a.equals(c)).to.be.false;
  });

  it('does not change when the caller changes its buffers after building', async function () {
    const data = Buffer.from('original');
    const source = buildIsoImage([{ name: 'x', data }], { volumeId: 'v', joliet: false });
    const before = await bytesOf(source.open());
    data.write('ORIGINAL');
    expect((await bytesOf(source.open())).equals(before)).to.be.true;
  });

  it('refuses what it cannot write: no files, empty, duplicate, slash, or too long Joliet names', function () {
    const build = (files: IsoFile[], joliet = false) => () => buildIsoImage(files, { volumeId: 'v', joliet });
    expect(build([])).to.throw(/at least one file/);
    expect(build([file('', 'x')])).to.throw(/invalid file name/);
    expect(build([file('a/b', 'x')])).to.throw(/invalid file name/);
    expect(build([file('a', 'x'), file('a', 'y')])).to.throw(/duplicate/);
    expect(build([file('n'.repeat(65), 'x')], true)).to.throw(/Joliet/);
    expect(build([file('n'.repeat(65), 'x')], false)).not.to.throw();
  });
});
