// The configuration reference table of README.md, made from the schema
// (SPEC 7): scripts/readme-config.ts writes it between the markers, and
// test/unit/config.test.ts holds the README to it row for row, so a doc
// changed in one place and not the other fails a test.
import { describeKeys } from '../src/config/index.js';

/** The table between README's config-reference markers (group 1). */
export const README_TABLE = /<!-- config-reference:start -->\n([\s\S]*)\n<!-- config-reference:end -->/;

export function configReferenceTable(): string {
  const rows = describeKeys().map((k) => `| \`${k.path}\` | \`${k.env}\` | \`${JSON.stringify(k.default)}\` | ${k.doc.replace(/\|/g, '\\|')} |`);
  return ['| key | variable | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
