// The `pool-list` format of `pools` (SPEC 30): a JSON list (an environment
// variable's text is parsed first), each entry checked on its own by
// pools.ts, every problem naming `pools[i].<field>`. What an entry says of
// the rest of the config (its image, node, bounds) is checked once the
// whole config is loaded, and the defaults filled then (src/config/index.ts).
import type { Format } from 'convict';
import { parseJsonIfString } from './list-formats.js';
import { poolListProblems } from './pools.js';

export const POOL_LIST_FORMAT: Format = {
  name: 'pool-list',
  coerce: parseJsonIfString,
  validate(value: unknown) {
    const problems = poolListProblems(value);
    if (problems.length > 0) throw new Error(problems.join('; '));
  },
};
