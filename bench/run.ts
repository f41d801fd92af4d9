// `npm run bench`: runs every bench/*.ts but this one, in sequence, each in
// its own process (tsx), passing this script's arguments through (e.g.
// --quick). Exits non-zero when any of them fails. Files whose name starts
// with "_" are helpers, not benchmarks. Benches that take minutes have an
// npm script of their own and are left out (OWN_SCRIPT).
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const self = basename(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
/** bench/pools.ts (issue 32) drives 60 creates over a minute of wall time, twice: `npm run bench:pools`. */
const OWN_SCRIPT = new Set(['pools.ts']);

const benches = readdirSync(here)
  .filter((name) => name.endsWith('.ts') && name !== self && !OWN_SCRIPT.has(name) && !name.startsWith('_') && !name.endsWith('.d.ts'))
  .sort();

function runOne(file: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(here, file), ...args], { stdio: 'inherit' });
    child.on('error', (err) => {
      process.stderr.write(`bench: cannot start ${file}: ${err.message}\n`);
      resolve(1);
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal !== null ? 1 : 0)));
  });
}

const failed: string[] = [];
for (const file of benches) {
  process.stdout.write(`\n== bench/${file} ${args.join(' ')}\n`);
  const code = await runOne(file);
  if (code !== 0) {
    process.stderr.write(`bench: ${file} exited ${code}\n`);
    failed.push(file);
  }
}
process.stdout.write(`\nbench: ${benches.length - failed.length} of ${benches.length} passed${failed.length > 0 ? `; failed: ${failed.join(', ')}` : ''}\n`);
process.exitCode = failed.length > 0 ? 1 : 0;
