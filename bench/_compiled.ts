// Benchmarks that compare our code with a library's run it as compiled
// JavaScript (SPEC 21), as production does, not through tsx: dist/ from
// `npm run build` (rebuilt when a source is newer), and the bench's own
// child scripts transpiled next to it into dist/bench/.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import ts from 'typescript';
import { ROOT } from './_processes.js';

export const DIST = join(ROOT, 'dist');

/** The newest modification time of any file under dir, 0 when there is none. */
function newestMtimeMs(dir: string, ext: string): number {
  let newest = 0;
  let entries: string[];
  try {
    entries = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (entry.endsWith(ext)) newest = Math.max(newest, statSync(join(dir, entry)).mtimeMs);
  }
  return newest;
}

export interface BuildInfo {
  /** The commit the sources are at, "+dirty" when the work tree has changes. */
  commit: string;
  /** Whether this run rebuilt dist/. */
  rebuilt: boolean;
  dist: string;
}

function commitOf(): string {
  const git = (args: string[]): string => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  try {
    const dirty = git(['status', '--porcelain', '--untracked-files=no', '--', 'src', 'jobs', 'bench']) !== '';
    return `${git(['rev-parse', '--short', 'HEAD'])}${dirty ? '+dirty' : ''}`;
  } catch {
    return 'unknown';
  }
}

/** Runs `npm run build` when dist/ is missing or older than src/ or jobs/. */
export function ensureBuilt(): BuildInfo {
  const sources = Math.max(newestMtimeMs(join(ROOT, 'src'), '.ts'), newestMtimeMs(join(ROOT, 'jobs'), '.ts'));
  const built = Math.min(newestMtimeMs(join(DIST, 'src'), '.js'), newestMtimeMs(join(DIST, 'jobs'), '.js'));
  const rebuilt = built === 0 || built < sources;
  if (rebuilt) execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  return { commit: commitOf(), rebuilt, dist: DIST };
}

/**
 * Transpiles bench/<file>.ts files (types erased, no type check: `npm run
 * check` does that) to dist/bench/<file>.js, where their relative imports
 * of ../src and ../jobs land on the build. Returns the path of the first.
 */
export function transpileBenchFiles(files: readonly string[]): string[] {
  const out = join(DIST, 'bench');
  mkdirSync(out, { recursive: true });
  return files.map((file) => {
    const source = readFileSync(join(ROOT, 'bench', file), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, esModuleInterop: true, verbatimModuleSyntax: false },
    });
    const target = join(out, basename(file).replace(/\.ts$/, '.js'));
    writeFileSync(target, outputText);
    return target;
  });
}
