// SPEC 6: the producer library is importable without the worker code: no
// provider, no job handler, no worker is reachable from src/client.ts.
// SPEC 27: it ships as a package of its own (packages/client), so nothing
// it reaches, type-only imports included, may need a server package.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect } from 'chai';

const root = resolve(import.meta.dirname, '..', '..');

/** The packages the client's package.json depends on: all it may import besides Node's own modules. */
const CLIENT_DEPENDENCIES = Object.keys((JSON.parse(readFileSync(join(root, 'packages', 'client', 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies);

interface Reach {
  files: Set<string>;
  /** Bare specifiers imported, with the file that imports each. */
  packages: Map<string, string>;
}

/** Files reached from `file`: by value imports (type-only imports are erased), or by every import when `types`. */
function reachable(file: string, types: boolean, reach: Reach = { files: new Set(), packages: new Map() }): Reach {
  if (reach.files.has(file)) return reach;
  reach.files.add(file);
  const text = readFileSync(file, 'utf8');
  // With `types`, an inline `import('...')` type counts too: tsc writes it into the .d.ts it ships.
  const imports = types ? /^(?:import|export)\s+[^;]*?from\s+'([^']+)'|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gms : /^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gms;
  for (const match of text.matchAll(imports)) {
    const specifier = match[1] ?? match[2] ?? '';
    if (specifier.startsWith('.')) reachable(join(dirname(file), specifier.replace(/\.js$/, '.ts')), types, reach);
    else reach.packages.set(specifier, relative(root, file));
  }
  return reach;
}

describe('src/client.ts (SPEC 6)', () => {
  it('pulls in no provider, handler or worker code', () => {
    const files = [...reachable(join(root, 'src', 'client.ts'), false).files].map((f) => relative(root, f));
    expect(files).to.include('src/job-table/schema.ts');
    const workerSide = files.filter((f) => /^src\/(provider|proxmox|sim|reconciler|worker)\/|^src\/queue\/name-lock\.ts$|^jobs\/(index|types|create|delete|check|health)\.ts$/.test(f));
    expect(workerSide).to.deep.equal([]);
  });

  it("reaches no package but Node's and the client package's dependencies, type-only imports included (SPEC 27)", () => {
    const { packages } = reachable(join(root, 'src', 'client.ts'), true);
    const foreign = [...packages].filter(([name]) => !name.startsWith('node:') && !CLIENT_DEPENDENCIES.includes(name)).map(([name, file]) => `${name} (from ${file})`);
    expect(foreign).to.deep.equal([]);
    expect([...packages.keys()]).to.include.members(['bullmq', 'ioredis']);
  });
});
