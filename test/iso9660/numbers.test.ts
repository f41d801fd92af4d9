import { expect } from 'chai';
import { bothEndian16, bothEndian32 } from '../../src/iso9660/numbers.js';

describe('ISO 9660 both-endian numbers', function () {
  // ECMA-119 7.2.3: a 16-bit number recorded little-endian, then big-endian.
  it('writes 16-bit numbers as LE then BE (7.2.3)', function () {
    expect([...bothEndian16(0x0800)]).to.deep.equal([0x00, 0x08, 0x08, 0x00]);
    expect([...bothEndian16(0x1234)]).to.deep.equal([0x34, 0x12, 0x12, 0x34]);
  });

  // ECMA-119 7.3.3: a 32-bit number recorded little-endian, then big-endian.
  it('writes 32-bit numbers as LE then BE (7.3.3)', function () {
    expect([...bothEndian32(0x01020304)]).to.deep.equal([4, 3, 2, 1, 1, 2, 3, 4]);
    expect([...bothEndian32(0xffffffff)]).to.deep.equal([255, 255, 255, 255, 255, 255, 255, 255]);
  });
});
