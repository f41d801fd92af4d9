// Lines of `key:  value` for a person, the values made safe for a terminal;
// a key without a value is left out.
import { shown } from './terminal-text.js';

export function labelledLines(pairs: readonly (readonly [string, string | undefined])[]): string {
  return pairs.flatMap(([key, value]) => (value === undefined ? [] : [`${`${key}:`.padEnd(11)}${shown(value)}\n`])).join('');
}
