// Regenerates the configuration reference table in README.md from the schema.
import { readFileSync, writeFileSync } from 'node:fs';
import { describeKeys } from '../src/config/index.js';

const rows = describeKeys().map((k) => `| \`${k.path}\` | \`${k.env}\` | \`${JSON.stringify(k.default)}\` | ${k.doc.replace(/\|/g, '\\|')} |`);
const table = ['| key | variable | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
const readmePath = new URL('../README.md', import.meta.url);
const readme = readFileSync(readmePath, 'utf8');
writeFileSync(
  readmePath,
  readme.replace(/<!-- config-reference:start -->[\s\S]*<!-- config-reference:end -->/, `<!-- config-reference:start -->\n${table}\n<!-- config-reference:end -->`),
);
