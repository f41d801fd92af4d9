import { expect } from 'chai';
import { rootPathTable } from '../../src/iso9660/path-table.js';

describe('ISO 9660 path tables', function () {
  // ECMA-119 9.4: identifier length, extended attribute length, extent (LE in the
  // L table, 7.3.1; BE in the M table, 7.3.2), parent number 1, identifier 0x00, pad.
  it('writes the root entry of the L table little-endian, 10 bytes (9.4)', function () {
    expect([...rootPathTable(0x0115, 'L')]).to.deep.equal([1, 0, 0x15, 0x01, 0, 0, 1, 0, 0, 0]);
  });

  it('writes the root entry of the M table big-endian, 10 bytes (9.4)', function () {
    expect([...rootPathTable(0x0115, 'M')]).to.deep.equal([1, 0, 0, 0, 0x01, 0x15, 0, 1, 0, 0]);
  });
});
