// Each reader's view of an image: the regular files it lists at the root,
// by name, with the bytes it extracts. Every view comes from a tool other
// people wrote; none of our code parses the image here.
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mustRun, runTool } from './tools.js';

export type FileView = Map<string, Buffer>;

async function readTree(dir: string): Promise<FileView> {
  const view: FileView = new Map();
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isFile()) view.set(entry.name, await readFile(join(dir, entry.name)));
    else view.set(`${entry.name}/`, Buffer.alloc(0));
  }
  return view;
}

/** xorriso (Rock Ridge): names from -find, bytes from an osirrox extract. */
export async function xorrisoView(iso: string, work: string): Promise<FileView> {
  const found = mustRun('xorriso', ['-indev', iso, '-find', '/', '-type', 'f']).toString('utf8');
  const names = found
    .split('\n')
    .filter((line) => line.startsWith("'/"))
    .map((line) => line.slice(2, -1));
  const out = join(work, 'xorriso');
  await mkdir(out);
  mustRun('xorriso', ['-osirrox', 'on', '-indev', iso, '-extract', '/', out]);
  const extracted = await readTree(out);
  return new Map(names.map((name) => [name, extracted.get(name) ?? Buffer.from('(not extracted)')]));
}

/** isoinfo with -R (Rock Ridge) or -J (Joliet): names from -l, bytes from -x. */
export function isoinfoView(iso: string, mode: '-R' | '-J'): FileView {
  const listing = mustRun('isoinfo', [mode, '-l', '-i', iso]).toString('utf8');
  const names = listing
    .split('\n')
    .filter((line) => line.startsWith('-'))
    .map((line) => line.slice(line.indexOf(']') + 1).trim());
  return new Map(names.map((name) => [name, mustRun('isoinfo', [mode, '-i', iso, '-x', `/${name}`])]));
}

/** The primary tree's own identifiers, as isoinfo lists them without -R or -J. */
export function isoinfoPrimaryNames(iso: string): string[] {
  const listing = mustRun('isoinfo', ['-l', '-i', iso]).toString('utf8');
  return listing
    .split('\n')
    .filter((line) => line.startsWith('-'))
    .map((line) => line.slice(line.indexOf(']') + 1).trim());
}

/** 7-Zip: names from the technical listing, bytes from an extract. */
export async function sevenZipView(iso: string, work: string): Promise<FileView> {
  const listing = mustRun('7z', ['l', '-slt', iso]).toString('utf8');
  const entries = listing.split('\n----------\n')[1] ?? '';
  const names = entries
    .split('\n')
    .filter((line) => line.startsWith('Path = '))
    .map((line) => line.slice('Path = '.length));
  const out = join(work, '7z');
  mustRun('7z', ['x', `-o${out}`, iso]);
  const extracted = await readTree(out);
  return new Map(names.map((name) => [name, extracted.get(name) ?? Buffer.from('(not extracted)')]));
}

/** libarchive's bsdtar: names from -t (the root "." left out), bytes from -x to stdout. */
export function bsdtarView(iso: string): FileView {
  const names = mustRun('bsdtar', ['-tf', iso])
    .toString('utf8')
    .split('\n')
    .filter((name) => name !== '' && name !== '.' && name !== './');
  return new Map(names.map((name) => [name, mustRun('bsdtar', ['-xOf', iso, name])]));
}

const PYCDLIB_SCRIPT = `
import io, json, sys, pycdlib
iso = pycdlib.PyCdlib()
iso.open(sys.argv[1])
tree = sys.argv[2]
out = {}
for child in iso.list_children(**{tree + '_path': '/'}):
    if child.is_dot() or child.is_dotdot():
        continue
    if tree == 'rr':
        name = child.rock_ridge.name().decode('utf-8')
    else:
        name = child.file_identifier().decode('utf-16-be')
    data = io.BytesIO()
    iso.get_file_from_iso_fp(data, **{tree + '_path': '/' + name})
    out[name] = data.getvalue().hex()
iso.close()
print(json.dumps(out))
`;

/** pycdlib: the Rock Ridge ("rr") or Joliet tree, names and bytes. */
export function pycdlibView(iso: string, tree: 'rr' | 'joliet'): FileView {
  const result = runTool('/usr/bin/python3', ['-c', PYCDLIB_SCRIPT, iso, tree]);
  if (result.stderr.includes("No module named 'pycdlib'")) throw new Error('pycdlib is not installed: install the Debian package python3-pycdlib');
  if (result.status !== 0) throw new Error(`pycdlib could not read ${iso}: ${result.stderr.trim()}`);
  const json = result.stdout.toString('utf8');
  const parsed = JSON.parse(json) as Record<string, string>;
  return new Map(Object.entries(parsed).map(([name, hex]) => [name, Buffer.from(hex, 'hex')]));
}

/** blkid's low-level probe (what cloud-init uses to find the seed). */
export function blkidProbe(iso: string): Record<string, string> {
  const text = mustRun('blkid', ['-p', '-o', 'export', iso]).toString('utf8');
  const fields: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) fields[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return fields;
}
