// The `network-list` format of proxmox.networks (SPEC 29): a JSON list (an
// environment variable's text is parsed first) checked by
// network-pools.ts, every problem naming the entry and the field. The
// loader fills the defaults once checked (src/config/index.ts).
import type { Format } from 'convict';
import { parseJsonIfString } from './list-formats.js';
import { networkListProblems } from './network-pools.js';

export const NETWORK_LIST_FORMAT: Format = {
  name: 'network-list',
  coerce: parseJsonIfString,
  validate(value: unknown) {
    const problems = networkListProblems(value);
    if (problems.length > 0) throw new Error(problems.join('; '));
  },
};
