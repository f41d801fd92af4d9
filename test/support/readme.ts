// The README's shell blocks, as the tests that run them read them: the
// block after a `<!-- <marker>: ... -->` comment.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function readmeBlock(marker: string): string {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const match = new RegExp(`<!-- ${marker}[:\\s][^>]*-->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!match?.[1]) throw new Error(`README.md has no ${marker} block`);
  return match[1];
}

/** The variables the walk's service block sets before `npm start` (`NAME='value' \` lines). */
export function readmeServiceEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of readmeBlock('readme-walk: service').matchAll(/^([A-Z_]+)=('([^']*)'|(\S+))/gm)) {
    const name = m[1];
    const value = m[3] ?? m[4];
    if (name !== undefined && value !== undefined) env[name] = value;
  }
  return env;
}
