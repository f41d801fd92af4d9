// SPEC 24: what the CLI prints of text it did not write is safe on a
// terminal. Control characters, DEL, C1 and the Unicode line separators
// and direction overrides come out as escapes; other text, accents and
// CJK included, as it is; a JSON document stays the same document.
import { expect } from 'chai';
import { jsonDocument, shown } from '../../src/cli/terminal-text.js';
import { controlCharacters } from '../support/terminal.js';

describe('terminal-safe text (SPEC 24)', () => {
  it('shows CR, LF, TAB and ESC as escapes, so no sequence runs and no line is forged', () => {
    expect(shown('exit code 2\r\njob x: completed\t\u001b[2J\u001b]0;title\u0007')).to.equal('exit code 2\\r\\njob x: completed\\t\\u001b[2J\\u001b]0;title\\u0007');
  });

  it('escapes DEL, the C1 controls (8-bit CSI) and the Unicode separators and direction controls', () => {
    const text = 'a\u007fb\u009b31mc\u0085d\u2028e\u202ef\u2066g\u200fh';
    expect(shown(text)).to.equal('a\\u007fb\\u009b31mc\\u0085d\\u2028e\\u202ef\\u2066g\\u200fh');
    expect(controlCharacters(shown(text))).to.deep.equal([]);
  });

  it('leaves printable text alone, accents, CJK and emoji included', () => {
    const text = 'Datenträger voll: 磁盘已满 🙂 (pve1, 192.0.2.1)';
    expect(shown(text)).to.equal(text);
  });

  it('jsonDocument is the same document for a parser, with nothing raw in it but its own newlines', () => {
    const value = { reason: 'x\u001b[31m\r\ny\u009b\u202e\u2028z', nested: [{ address: '192.0.2.1' }], ok: true };
    const text = jsonDocument(value);
    expect(JSON.parse(text)).to.deep.equal(value);
    expect(text.endsWith('}\n')).to.equal(true);
    expect(controlCharacters(text)).to.deep.equal([]);
    expect(text).to.contain('\\u009b\\u202e\\u2028z');
  });

  it('jsonDocument of nothing is null', () => {
    expect(jsonDocument(undefined)).to.equal('null\n');
  });
});
