// SPEC 7 (issue 26): a boolean from the environment means what its word
// says. Every boolean key of the schema is walked, so a key added later
// with convict's own Boolean (where only "false" is false) fails here.
import { expect } from 'chai';
import { describeKeys, loadConfig } from '../../src/config/index.js';
import { loadError } from '../support/config-error.js';

/** The value at a dotted path of the loaded config. */
function valueAt(config: object, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], config);
}

const booleanKeys = describeKeys().filter((key) => typeof key.default === 'boolean');

describe('boolean config keys from the environment (SPEC 7, issue 26)', () => {
  it('finds the boolean keys in the schema, the auth and board switches among them', () => {
    expect(booleanKeys.map((key) => key.path)).to.include.members(['http.authDisabled', 'http.boardWritable', 'http.metricsAuth']);
  });

  const meanings: [string, boolean][] = [
    ['true', true],
    ['false', false],
    ['1', true],
    ['0', false],
    ['yes', true],
    ['no', false],
    ['TRUE', true],
    [' No ', false],
  ];
  for (const key of booleanKeys) {
    it(`${key.env} means what its word says`, () => {
      for (const [word, meaning] of meanings) {
        expect(valueAt(loadConfig({ env: { [key.env]: word } }), key.path), `${key.env}=${JSON.stringify(word)}`).to.equal(meaning);
      }
    });

    it(`${key.env} refuses any other word at start, naming the key and the variable`, () => {
      for (const word of ['off', 'on', 'n', '2', '', 'disabled']) {
        const message = loadError({ [key.env]: word });
        expect(message, word).to.include(`${key.path}: must be true or false`).and.include(key.env);
        // convict shows the value when it is not empty
        if (word !== '') expect(message, word).to.include(`value was ${JSON.stringify(word)}`);
      }
    });
  }
});
