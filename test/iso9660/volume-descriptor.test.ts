import { expect } from 'chai';
import { directoryRecord, SELF_IDENTIFIER } from '../../src/iso9660/directory-record.js';
import { terminatorDescriptor, volumeDescriptor, type DescriptorKind } from '../../src/iso9660/volume-descriptor.js';

const DATE = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
const ROOT = directoryRecord({ extent: 22, dataLength: 2048, date: DATE, directory: true, identifier: SELF_IDENTIFIER });

function descriptor(kind: DescriptorKind): Buffer {
  return volumeDescriptor({ kind, volumeId: 'cidata', volumeSpaceSize: 30, pathTableSize: 10, lPathTableBlock: 18, mPathTableBlock: 19, rootRecord: ROOT, date: DATE });
}

describe('ISO 9660 volume descriptors', function () {
  const pvd = descriptor('primary');

  // ECMA-119 8.4.1-8.4.3: type 1, "CD001", version 1; one 2048-byte sector.
  it('starts the primary descriptor with type 1, CD001, version 1 (8.4.1-8.4.3)', function () {
    expect(pvd.length).to.equal(2048);
    expect(pvd.subarray(0, 7).toString('latin1')).to.equal('\x01CD001\x01');
  });

  // ECMA-119 8.4.6: volume identifier, 32 bytes padded with spaces; blkid reads it as LABEL.
  it('carries the volume id padded with spaces (8.4.6)', function () {
    expect(pvd.subarray(40, 72).toString('ascii')).to.equal('cidata'.padEnd(32, ' '));
  });

  // ECMA-119 8.4.8, 8.4.10-8.4.13: both-endian sizes; libarchive checks the halves agree.
  it('writes volume space size, set size, sequence number, block size and path table size both-endian (8.4.8-8.4.13)', function () {
    expect([...pvd.subarray(80, 88)]).to.deep.equal([30, 0, 0, 0, 0, 0, 0, 30]);
    expect([...pvd.subarray(120, 128)]).to.deep.equal([1, 0, 0, 1, 1, 0, 0, 1]);
    expect([...pvd.subarray(128, 132)]).to.deep.equal([0, 8, 8, 0]);
    expect([...pvd.subarray(132, 140)]).to.deep.equal([10, 0, 0, 0, 0, 0, 0, 10]);
  });

  // ECMA-119 8.4.14-8.4.17: L table location little-endian, M table big-endian, no optional tables.
  it('points at the L table (LE) and M table (BE) (8.4.14-8.4.17)', function () {
    expect([...pvd.subarray(140, 156)]).to.deep.equal([18, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 19, 0, 0, 0, 0]);
  });

  // ECMA-119 8.4.18: the root directory record at byte 156.
  it('holds the 34-byte root record at 156 (8.4.18)', function () {
    expect(pvd.subarray(156, 190).equals(ROOT)).to.be.true;
  });

  // ECMA-119 8.4.26-8.4.29 dates and 8.4.31 file structure version 1; reserved bytes zero.
  it('writes creation and modification dates, unspecified expiry, file structure version 1 (8.4.26-8.4.31)', function () {
    expect(pvd.subarray(813, 829).toString('ascii')).to.equal('2026010203040500');
    expect(pvd.subarray(830, 846).toString('ascii')).to.equal('2026010203040500');
    expect(pvd.subarray(847, 863).toString('ascii')).to.equal('0'.repeat(16));
    expect(pvd[881]).to.equal(1);
    expect(pvd.subarray(72, 80).every((b) => b === 0)).to.be.true; // 8.4.7 unused
    expect(pvd.subarray(882, 2048).every((b) => b === 0)).to.be.true; // 8.4.32-8.4.34
  });

  // ECMA-119 8.5 and Joliet: type 2, escape sequence "%/E" (UCS-2 level 3), UCS-2 BE identifiers.
  it('makes the Joliet descriptor type 2 with escape %/E and a UCS-2 volume id (8.5)', function () {
    const svd = descriptor('joliet');
    expect(svd[0]).to.equal(2);
    expect(svd.subarray(88, 91).toString('ascii')).to.equal('%/E');
    expect(Buffer.from(svd.subarray(40, 52)).swap16().toString('utf16le')).to.equal('cidata');
    expect([...svd.subarray(52, 54)]).to.deep.equal([0, 0x20]);
  });

  // ECMA-119 8.3: the terminator is type 255, CD001, version 1.
  it('ends the set with a type 255 terminator (8.3)', function () {
    const term = terminatorDescriptor();
    expect(term.subarray(0, 7).toString('latin1')).to.equal('\xffCD001\x01');
    expect(term.subarray(7).every((b) => b === 0)).to.be.true;
  });
});
