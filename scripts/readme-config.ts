// Regenerates the configuration reference table in README.md from the schema.
import { readFileSync, writeFileSync } from 'node:fs';
import { configReferenceTable, README_TABLE } from './config-reference.js';

const readmePath = new URL('../README.md', import.meta.url);
const readme = readFileSync(readmePath, 'utf8');
if (!README_TABLE.test(readme)) throw new Error('README.md has no <!-- config-reference:start --> ... <!-- config-reference:end --> block');
writeFileSync(readmePath, readme.replace(README_TABLE, `<!-- config-reference:start -->\n${configReferenceTable()}\n<!-- config-reference:end -->`));
