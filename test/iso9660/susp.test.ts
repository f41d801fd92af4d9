import { expect } from 'chai';
import { ceEntry, erEntry, nmEntry, pxEntry, spEntry, tfEntry } from '../../src/iso9660/susp.js';

describe('SUSP and Rock Ridge entries', function () {
  // SUSP 5.3: "SP", length 7, version 1, check bytes BE EF, LEN_SKP 0.
  it('writes SP exactly as readers check it (SUSP 5.3)', function () {
    expect([...spEntry()]).to.deep.equal([0x53, 0x50, 7, 1, 0xbe, 0xef, 0]);
  });

  // SUSP 5.1: "CE", length 28, block, offset and length of the continuation area, each both-endian.
  it('writes CE with both-endian block, offset and length (SUSP 5.1)', function () {
    const ce = ceEntry(21, 0, 237);
    expect(ce.length).to.equal(28);
    expect(ce.subarray(0, 4).toString('latin1')).to.equal('CE\x1c\x01');
    expect([...ce.subarray(4, 12)]).to.deep.equal([21, 0, 0, 0, 0, 0, 0, 21]);
    expect([...ce.subarray(20, 28)]).to.deep.equal([237, 0, 0, 0, 0, 0, 0, 237]);
  });

  // SUSP 5.5 and RRIP 4.3: ER for RRIP_1991A with the standard descriptor and source, 237 bytes.
  it('writes ER for RRIP_1991A with its standard texts, 237 bytes (SUSP 5.5, RRIP 4.3)', function () {
    const er = erEntry();
    expect(er.length).to.equal(237);
    expect([...er.subarray(0, 8)]).to.deep.equal([0x45, 0x52, 237, 1, 10, 84, 135, 1]);
    expect(er.subarray(8, 18).toString('ascii')).to.equal('RRIP_1991A');
    expect(er.subarray(18, 102).toString('ascii')).to.match(/^THE ROCK RIDGE INTERCHANGE PROTOCOL/);
  });

  // RRIP 4.1.4: "NM", length 5 + name, version 1, flags 0, the name bytes.
  it('writes NM with the exact name and no flags (RRIP 4.1.4)', function () {
    expect(nmEntry('meta-data').toString('latin1')).to.equal('NM\x0e\x01\x00meta-data');
  });

  // RRIP 4.1.1 (1.09): "PX", length 36, mode, links, uid, gid, each both-endian.
  it('writes PX in the 36-byte RRIP 1.09 form (RRIP 4.1.1)', function () {
    const px = pxEntry({ mode: 0o100444, links: 1, uid: 0, gid: 0 });
    expect(px.length).to.equal(36);
    expect([...px.subarray(0, 4)]).to.deep.equal([0x50, 0x58, 36, 1]);
    expect(px.readUInt32LE(4)).to.equal(0o100444);
    expect(px.readUInt32BE(8)).to.equal(0o100444);
    expect(px.readUInt32LE(12)).to.equal(1);
  });

  // RRIP 4.1.6: "TF", flags (modify, access, attributes), then three 7-byte dates.
  it('writes TF with modify, access and attribute times (RRIP 4.1.6)', function () {
    const tf = tfEntry(new Date(Date.UTC(2000, 0, 1)));
    expect(tf.length).to.equal(26);
    expect([...tf.subarray(0, 5)]).to.deep.equal([0x54, 0x46, 26, 1, 0x0e]);
    expect([...tf.subarray(5, 12)]).to.deep.equal([100, 1, 1, 0, 0, 0, 0]);
  });
});
