import { expect } from 'chai';
import { directoryRecord, PARENT_IDENTIFIER, SELF_IDENTIFIER } from '../../src/iso9660/directory-record.js';

const DATE = new Date(Date.UTC(2000, 0, 1));

describe('ISO 9660 directory records', function () {
  const root = directoryRecord({ extent: 20, dataLength: 2048, date: DATE, directory: true, identifier: SELF_IDENTIFIER });

  // ECMA-119 8.4.18 and 9.1: the root record in a volume descriptor is exactly 34 bytes.
  it('makes a 34-byte root record with its length in byte 0 (9.1.1)', function () {
    expect(root.length).to.equal(34);
    expect(root[0]).to.equal(34);
    expect(root[1]).to.equal(0); // 9.1.2 no extended attribute record
  });

  // ECMA-119 9.1.3 and 9.1.4: extent location and data length, both-endian.
  it('records extent and data length both-endian (9.1.3, 9.1.4)', function () {
    expect([...root.subarray(2, 10)]).to.deep.equal([20, 0, 0, 0, 0, 0, 0, 20]);
    expect([...root.subarray(10, 18)]).to.deep.equal([0, 8, 0, 0, 0, 0, 8, 0]);
  });

  // ECMA-119 9.1.5 date, 9.1.6 flags (bit 1 directory), 9.1.9 volume sequence number 1.
  it('sets the date, the directory flag and volume sequence number 1 (9.1.5, 9.1.6, 9.1.9)', function () {
    expect([...root.subarray(18, 25)]).to.deep.equal([100, 1, 1, 0, 0, 0, 0]);
    expect(root[25]).to.equal(0x02);
    expect([...root.subarray(28, 32)]).to.deep.equal([1, 0, 0, 1]);
  });

  // ECMA-119 9.1.10, 9.1.11: identifier 0x00 for "." and 0x01 for "..".
  it('names "." 0x00 and ".." 0x01 (9.1.11)', function () {
    expect([root[32], root[33]]).to.deep.equal([1, 0]);
    const parent = directoryRecord({ extent: 20, dataLength: 2048, date: DATE, directory: true, identifier: PARENT_IDENTIFIER });
    expect([parent[32], parent[33]]).to.deep.equal([1, 1]);
  });

  it('clears the directory flag for a file (9.1.6)', function () {
    const file = directoryRecord({ extent: 30, dataLength: 5, date: DATE, directory: false, identifier: Buffer.from('A.;1') });
    expect(file[25]).to.equal(0);
  });

  // ECMA-119 9.1.12: a padding byte follows an identifier of even length, so System Use (9.1.13) starts after it.
  it('pads an even-length identifier before the System Use field (9.1.12, 9.1.13)', function () {
    const systemUse = Buffer.from('PX');
    const even = directoryRecord({ extent: 30, dataLength: 5, date: DATE, directory: false, identifier: Buffer.from('AB.;1X'), systemUse });
    expect(even[33 + 6]).to.equal(0);
    expect(even.subarray(33 + 7, 33 + 9).toString()).to.equal('PX');
    const odd = directoryRecord({ extent: 30, dataLength: 5, date: DATE, directory: false, identifier: Buffer.from('A.;1X'), systemUse });
    expect(odd.subarray(33 + 5, 33 + 7).toString()).to.equal('PX');
  });

  it('keeps every record an even number of bytes, its length in byte 0', function () {
    const record = directoryRecord({ extent: 1, dataLength: 1, date: DATE, directory: false, identifier: Buffer.from('A.;1X'), systemUse: Buffer.from('SPX') });
    expect(record.length % 2).to.equal(0);
    expect(record[0]).to.equal(record.length);
  });
});
