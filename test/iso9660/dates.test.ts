import { expect } from 'chai';
import { recordDate, unspecifiedVolumeDate, volumeDate } from '../../src/iso9660/dates.js';

const WHEN = new Date(Date.UTC(2026, 10, 30, 10, 50, 6, 120));

describe('ISO 9660 dates', function () {
  // ECMA-119 9.1.5: years since 1900, month 1-12, day, hour, minute, second, GMT offset in 15-minute units.
  it('writes the 7-byte directory record date in UTC (9.1.5)', function () {
    expect([...recordDate(WHEN)]).to.deep.equal([126, 11, 30, 10, 50, 6, 0]);
  });

  // ECMA-119 8.4.26.1: 16 ASCII digits YYYYMMDDHHMMSScc (hundredths), then the offset byte.
  it('writes the 17-byte volume descriptor date as digits (8.4.26.1)', function () {
    const date = volumeDate(WHEN);
    expect(date.length).to.equal(17);
    expect(date.subarray(0, 16).toString('ascii')).to.equal('2026113010500612');
    expect(date[16]).to.equal(0);
  });

  // ECMA-119 8.4.26.1: "not specified" is all digits zero and offset 0.
  it('writes an unspecified date as sixteen "0" digits (8.4.26.1)', function () {
    expect(unspecifiedVolumeDate().toString('latin1')).to.equal(`${'0'.repeat(16)}\0`);
  });
});
