import { expect } from 'chai';
import { level1Identifiers, ucs2be } from '../../src/iso9660/names.js';

describe('ISO 9660 file identifiers', function () {
  // ECMA-119 7.5.1 and 10.1 (level 1): 8 d-characters, '.', up to 3, ";1".
  it('maps the seed names to level-1 identifiers, as genisoimage does (7.5.1, 10.1)', function () {
    const ids = level1Identifiers(['meta-data', 'user-data', 'vendor-data', 'network-config']);
    expect([...ids.values()]).to.deep.equal(['META_DAT.;1', 'USER_DAT.;1', 'VENDOR_D.;1', 'NETWORK_.;1']);
  });

  it('keeps an extension of up to 3 characters', function () {
    expect(level1Identifiers(['readme.markdown']).get('readme.markdown')).to.equal('README.MAR;1');
  });

  it('makes names that clash after mapping unique, still level 1', function () {
    const ids = [...level1Identifiers(['user-data-1', 'user-data-2', 'user_data']).values()];
    expect(new Set(ids).size).to.equal(3);
    for (const id of ids) expect(id).to.match(/^[A-Z0-9_]{1,8}\.[A-Z0-9_]{0,3};1$/);
  });

  // Joliet: names in UCS-2 big-endian.
  it('encodes Joliet names as UCS-2 big-endian', function () {
    expect([...ucs2be('a-é')]).to.deep.equal([0, 0x61, 0, 0x2d, 0, 0xe9]);
  });
});
