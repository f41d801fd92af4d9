// `npm run docs:privileges`: regenerates the README's privilege block from src/verify/privileges.ts (SPEC 33).
import { readFileSync, writeFileSync } from 'node:fs';
import { withPrivilegesBlock } from '../src/verify/privileges-doc.js';

const readmePath = new URL('../README.md', import.meta.url);
writeFileSync(readmePath, withPrivilegesBlock(readFileSync(readmePath, 'utf8')));
