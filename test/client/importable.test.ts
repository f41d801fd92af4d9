// SPEC 6: the producer library is importable without the worker code: no
// provider, no job handler, no worker is reachable from src/client.ts.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect } from 'chai';

const root = resolve(import.meta.dirname, '..', '..');

/** Files reached from `file` by value imports (type-only imports are erased). */
function reachable(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'(\.[^']+)'/gms)) {
    const target = join(dirname(file), (match[1] ?? '').replace(/\.js$/, '.ts'));
    reachable(target, seen);
  }
  return seen;
}

describe('src/client.ts (SPEC 6)', () => {
  it('pulls in no provider, handler or worker code', () => {
    const files = [...reachable(join(root, 'src', 'client.ts'))].map((f) => relative(root, f));
    expect(files).to.include('jobs/schema.ts');
    const workerSide = files.filter((f) => /^src\/(provider|proxmox|sim|reconciler|worker)\/|^src\/queue\/name-lock\.ts$|^jobs\/(index|types|create|delete|check|health)\.ts$/.test(f));
    expect(workerSide).to.deep.equal([]);
  });
});
