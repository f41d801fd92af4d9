// Derives which API methods run in pvedaemon (`protected => 1`) and which
// are proxied to the `{node}` of their path (`proxyto => 'node'`) from the
// Perl API modules themselves (issue 27, SPEC 28), and writes
// vendor/pve-api/protected.json, which the simulator reads (src/sim/daemons.ts).
//
// It reads the Proxmox mirrors with `git show HEAD:<file>` (no work tree),
// starts at pve-manager's PVE::API2 and follows every `subclass => ...,
// path => ...` mount, so each method gets its full path template. A method
// registered in a loop (`path => $command`, qemu-server's Agent.pm) stands
// for every child path of its module that the official schema
// (apidata.json) lists and no literal method claims.
//
//   npx tsx scripts/protected-methods.ts [MIRRORS_DIR]   (default /work/.mirror)
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const MIRRORS = process.argv[2] ?? '/work/.mirror';
const REPOS = ['pve-manager', 'qemu-server', 'pve-storage', 'pve-cluster', 'pve-common', 'pve-guest-common', 'pve-access-control', 'pve-container', 'pve-firewall', 'pve-ha-manager'];
const OUT = new URL('../vendor/pve-api/protected.json', import.meta.url);
const APIDATA = new URL('../vendor/pve-api/apidata.json', import.meta.url);

interface Registered {
  path: string;
  method?: string;
  protected: boolean;
  proxyto?: string;
  subclass?: string;
  /** `path => $var`: registered in a loop. */
  dynamic: boolean;
}

interface Repo {
  name: string;
  dir: string;
  commit: string;
  files: string[];
}

function git(dir: string, args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] });
}

function openRepos(): Repo[] {
  const repos: Repo[] = [];
  for (const name of REPOS) {
    const dir = `${MIRRORS}/proxmox+${name}/repo`;
    try {
      const commit = git(dir, ['rev-parse', 'HEAD']).trim();
      const files = git(dir, ['ls-tree', '-r', '--name-only', 'HEAD']).split('\n').filter((f) => f.endsWith('.pm'));
      repos.push({ name, dir, commit, files });
    } catch {
      process.stderr.write(`skipped ${name}: no mirror at ${dir}\n`);
    }
  }
  return repos;
}

/** The text between the `{` at `open` and its matching `}` (Perl strings and comments are rare enough in these blocks to ignore). */
function balanced(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i += 1) {
    const c = text[i];
    if (c === '{') depth += 1;
    else if (c === '}') {
      depth -= 1;
      if (depth === 0) return text.slice(open + 1, i);
    }
  }
  return text.slice(open + 1);
}

/** A key's value at the block's top level (depth 0 inside the block). */
function topLevelValue(block: string, key: string): string | undefined {
  let depth = 0;
  const pattern = new RegExp(`^\\s*${key}\\s*=>\\s*([^,\\n]+)`);
  for (const line of block.split('\n')) {
    if (depth === 0) {
      const m = pattern.exec(line);
      if (m?.[1] !== undefined) return m[1].trim();
    }
    for (const c of line) {
      if (c === '{' || c === '[' || c === '(') depth += 1;
      else if (c === '}' || c === ']' || c === ')') depth -= 1;
    }
  }
  return undefined;
}

function unquote(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const m = /^(['"])(.*)\1$/.exec(value);
  return m?.[2] ?? value;
}

/** Every register_method of each package in a file. */
function parsePackages(text: string): Map<string, Registered[]> {
  const packages = new Map<string, Registered[]>();
  const parts = text.split(/^package\s+([\w:]+)\s*;/m);
  for (let i = 1; i + 1 < parts.length; i += 2) {
    const name = parts[i] as string;
    const body = parts[i + 1] as string;
    const methods: Registered[] = [];
    for (const m of body.matchAll(/register_method\s*\(\s*\{/g)) {
      const block = balanced(body, (m.index ?? 0) + m[0].length - 1);
      const rawPath = topLevelValue(block, 'path');
      if (rawPath === undefined) continue;
      methods.push({
        path: unquote(rawPath) ?? '',
        method: unquote(topLevelValue(block, 'method')),
        protected: /^1\b/.test(topLevelValue(block, 'protected') ?? ''),
        proxyto: unquote(topLevelValue(block, 'proxyto')),
        subclass: unquote(topLevelValue(block, 'subclass')),
        dynamic: rawPath.startsWith('$'),
      });
    }
    packages.set(name, [...(packages.get(name) ?? []), ...methods]);
  }
  return packages;
}

function loadPackages(repos: Repo[]): Map<string, Registered[]> {
  const all = new Map<string, Registered[]>();
  for (const repo of repos) {
    for (const file of repo.files) {
      if (!/PVE\/API2/.test(file) && !/PVE\/API2\.pm$/.test(file)) continue;
      for (const [name, methods] of parsePackages(git(repo.dir, ['show', `HEAD:${file}`]))) {
        if (!all.has(name)) all.set(name, methods);
      }
    }
  }
  return all;
}

interface ApiNode {
  path: string;
  info?: Record<string, unknown>;
  children?: ApiNode[];
}

/** "METHOD /path" for every method the official schema lists. */
function schemaMethods(): Set<string> {
  const out = new Set<string>();
  const walk = (node: ApiNode): void => {
    for (const method of Object.keys(node.info ?? {})) out.add(`${method} ${node.path}`);
    for (const child of node.children ?? []) walk(child);
  };
  for (const root of JSON.parse(readFileSync(APIDATA, 'utf8')) as ApiNode[]) walk(root);
  return out;
}

interface Flags {
  protected: boolean;
  proxyto?: string;
}

function resolve(packages: Map<string, Registered[]>, schema: Set<string>): { routes: Map<string, Flags>; missing: Set<string> } {
  const routes = new Map<string, Flags>();
  const missing = new Set<string>();
  const join = (prefix: string, path: string): string => (path === '' ? prefix : `${prefix}/${path}`).replace(/\/+/g, '/') || '/';
  const visit = (pkg: string, prefix: string): void => {
    const methods = packages.get(pkg);
    if (methods === undefined) {
      missing.add(pkg);
      return;
    }
    const literal = methods.filter((m) => !m.dynamic);
    for (const m of literal) {
      if (m.subclass !== undefined) visit(m.subclass, join(prefix, m.path));
      else if (m.method !== undefined) routes.set(`${m.method} ${join(prefix, m.path) || '/'}`, { protected: m.protected, proxyto: m.proxyto });
    }
    // A loop's registration covers the module's direct children nobody else claims.
    // `method => $method` (Agent.pm's register_command) stands for any method.
    for (const m of methods.filter((x) => x.dynamic && x.method !== undefined)) {
      const verb = m.method?.startsWith('$') === true ? '[A-Z]+' : m.method;
      const childOf = new RegExp(`^${verb} ${prefix.replace(/[{}]/g, '\\$&')}/[^/]+$`);
      for (const key of schema) {
        if (childOf.test(key) && !routes.has(key)) routes.set(key, { protected: m.protected, proxyto: m.proxyto });
      }
    }
  };
  visit('PVE::API2', '');
  return { routes, missing };
}

const repos = openRepos();
const schema = schemaMethods();
const { routes, missing } = resolve(loadPackages(repos), schema);
const keys = [...routes.keys()].filter((k) => schema.has(k)).sort();
const output = {
  about:
    'Generated by scripts/protected-methods.ts from the Perl API modules (register_method: protected => 1 runs in pvedaemon; proxyto => node runs on the path\'s node). Do not edit by hand.',
  commits: Object.fromEntries(repos.map((r) => [`proxmox/${r.name}`, r.commit])),
  notResolved: [...missing].sort(),
  protected: keys.filter((k) => routes.get(k)?.protected === true),
  notProxied: keys.filter((k) => k.includes('{node}') && routes.get(k)?.proxyto === undefined),
  unprotected: keys.filter((k) => routes.get(k)?.protected !== true),
};
writeFileSync(OUT, `${JSON.stringify(output, null, 1)}\n`);
process.stdout.write(`${keys.length} methods (${output.protected.length} protected), ${missing.size} modules not in the mirrors\n`);
