// A boolean key's format. Convict's own Boolean turns every text but
// "false" into true, so HTTP_AUTH_DISABLED=0 would turn auth off; here a
// text must be one of the words below, and anything else stops start-up
// naming the key and its environment variable.
import type { Format, SchemaObj } from 'convict';

const WORDS: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['false', false],
  ['1', true],
  ['0', false],
  ['yes', true],
  ['no', false],
]);

/** The boolean a text stands for, or undefined when it is none of the words. */
export function booleanOfWord(text: string): boolean | undefined {
  return WORDS.get(text.trim().toLowerCase());
}

export const booleanWordFormat: Format = {
  name: 'boolean-word',
  coerce: (value: unknown) => (typeof value === 'string' ? (booleanOfWord(value) ?? value) : value),
  validate(value: unknown, schema: SchemaObj) {
    if (typeof value === 'boolean') return;
    const where = schema.env === undefined ? 'a config file' : `${schema.env} or a config file`;
    throw new Error(`must be true or false (1/0 and yes/no are taken too) in ${where}`);
  },
};
