// npm start's prestart: runs `npm run build` only when a source is newer
// than the build, so a start right after `npm ci` (whose prepare built)
// starts at once. Sources: src/, jobs/ (every file and directory, so a
// deleted file counts through its directory), package.json and the
// tsconfigs; the build: dist/src/cli.js and the client package's output.
// Plain JavaScript, so it starts without a TypeScript loader.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const SOURCES = ['src', 'jobs', 'package.json', 'tsconfig.json', 'tsconfig.build.json', 'packages/client/package.json', 'packages/client/tsconfig.json'];
const OUTPUTS = ['dist/src/cli.js', 'packages/client/dist/src/client.js'];

/** Modification time in ms, or undefined when the path is missing. */
function mtimeOf(path) {
  try {
    return statSync(path).mtimeMs;
  } catch (err) {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The newest mtime under a path (the path itself included); 0 when it is missing. */
function newestUnder(path) {
  const own = mtimeOf(path);
  if (own === undefined) return 0;
  if (!statSync(path).isDirectory()) return own;
  return readdirSync(path).reduce((newest, entry) => Math.max(newest, newestUnder(join(path, entry))), own);
}

function staleness() {
  const built = OUTPUTS.map(mtimeOf);
  const missing = OUTPUTS.filter((_, i) => built[i] === undefined);
  if (missing.length > 0) return `${missing.join(', ')} missing`;
  const oldestBuild = Math.min(...built);
  const newer = SOURCES.filter((source) => newestUnder(source) > oldestBuild);
  return newer.length > 0 ? `${newer.join(', ')} changed since the build` : undefined;
}

const why = staleness();
if (why === undefined) {
  process.stdout.write('build: dist/ is up to date\n');
} else {
  process.stdout.write(`build: ${why}; running npm run build\n`);
  const build = spawnSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
  process.exitCode = build.status ?? 1;
  // tsc writes its outputs even when it fails: date them back so the next start builds again.
  if (process.exitCode !== 0) for (const out of OUTPUTS) if (existsSync(out)) utimesSync(out, 0, 0);
}
