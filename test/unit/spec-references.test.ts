// docs/spec.md is the project's statement of behaviour: every `SPEC n`
// (with `step k`, lists such as `SPEC 2, 3` and ranges such as
// `SPEC 23 to 27`), every fact `F<n>` and every `correction n` cited in the
// code, tests, benchmarks, scripts and docs must name something that file
// has, so a reader of the repository can follow every citation.
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const specPath = join(repoRoot, 'docs', 'spec.md');
const thisFile = fileURLToPath(import.meta.url);

const scannedDirs = ['src', 'jobs', 'test', 'bench', 'scripts', 'docs', 'fixtures'];
const scannedRootFiles = ['README.md', 'CHANGELOG.md'];
const textFile = /\.(ts|js|mjs|cjs|md|json|ya?ml|sh)$/;

interface Entry {
  part: string;
  title: string;
  /** Numbers of the entry's top-level numbered list (its steps), in order. */
  steps: number[];
}

interface SpecDoc {
  /** Entry numbers in the order their headings appear (duplicates kept). */
  order: number[];
  entries: Map<number, Entry>;
  facts: number[];
  corrections: number[];
}

function parseSpec(text: string): SpecDoc {
  const doc: SpecDoc = { order: [], entries: new Map(), facts: [], corrections: [] };
  let section = '';
  let entry: Entry | undefined;
  for (const line of text.split('\n')) {
    const h2 = /^## (.+)$/.exec(line);
    if (h2?.[1] !== undefined) {
      section = h2[1];
      entry = undefined;
      continue;
    }
    const h3 = /^### (\d+)\. (\S.*)$/.exec(line);
    if (h3?.[1] !== undefined && h3[2] !== undefined) {
      const n = Number(h3[1]);
      entry = { part: section, title: h3[2], steps: [] };
      doc.order.push(n);
      doc.entries.set(n, entry);
      continue;
    }
    const step = /^(\d+)\. /.exec(line);
    if (step?.[1] !== undefined) {
      if (entry) entry.steps.push(Number(step[1]));
      else if (section.startsWith('Corrections')) doc.corrections.push(Number(step[1]));
    }
    const fact = /^- \*\*F(\d+)\.\*\* \S/.exec(line);
    if (fact?.[1] !== undefined && section.startsWith('Facts')) doc.facts.push(Number(fact[1]));
  }
  return doc;
}

/** One cited entry and the steps of it that are cited (none: the whole entry). */
interface SpecCitation {
  entry: number;
  steps: number[];
}

// Between the words of a citation: spaces, or a line break followed by a
// comment leader, since comments wrap in the middle of `SPEC 5, 14`.
const gap = String.raw`\s+(?:(?:\/\/+|\*(?!\/)|#+)\s+)?`;
const num = String.raw`\d+`;
const listSep = String.raw`(?:,${gap}and${gap}|,${gap}|${gap}(?:and|or)${gap})`;
const range = String.raw`(?:${gap}(?:to|-|–)${gap}|-)`;
const stepList = String.raw`steps?${gap}${num}(?:(?:${listSep}|${range})${num})*`;
const item = String.raw`${num}(?:${range}${num})?(?:${gap}${stepList})?`;
const specPattern = new RegExp(String.raw`\bSPEC${gap}(${item}(?:${listSep}${item})*)`, 'g');
const factPattern = /(?<![\w.#:/-])F(\d+)\b/g;
const correctionPattern = new RegExp(String.raw`\bcorrections?${gap}(${num}(?:(?:${listSep}|${range})${num})*)`, 'gi');

/** Numbers of a list such as `1, 6 and 9` or `10 to 16`, ranges expanded. */
function numberList(tokens: string[]): number[] {
  const out: number[] = [];
  let rangeFrom: number | undefined;
  for (const token of tokens) {
    if (token === 'to' || token === '-' || token === '–') {
      rangeFrom = out[out.length - 1];
      continue;
    }
    const n = Number(token);
    if (!Number.isInteger(n)) continue;
    if (rangeFrom !== undefined) {
      for (let k = rangeFrom + 1; k < n; k += 1) out.push(k);
      // A backwards range is a slip: 0 names no entry, fact or correction.
      if (n <= rangeFrom) out.push(0);
      rangeFrom = undefined;
    }
    out.push(n);
  }
  return out;
}

function tokens(text: string): string[] {
  return text.match(/\d+|steps?|to|-|–/g) ?? [];
}

/** The citations in one `SPEC ...` text: entries, and the steps given for each. */
function specCitations(text: string): SpecCitation[] {
  const out: SpecCitation[] = [];
  for (const match of text.matchAll(specPattern)) {
    const cited = match[1] ?? '';
    // `SPEC 13 steps 1 and 3, 15`: the numbers after `step` are steps of the
    // entry just before it, up to the end of the citation.
    const [entryPart = '', stepPart] = cited.split(/steps?/);
    const entries = numberList(tokens(entryPart));
    const steps = stepPart === undefined ? [] : numberList(tokens(stepPart));
    entries.forEach((entry, i) => out.push({ entry, steps: i === entries.length - 1 ? steps : [] }));
  }
  return out;
}

function factCitations(text: string): number[] {
  return [...text.matchAll(factPattern)].map((m) => Number(m[1]));
}

function correctionCitations(text: string): number[] {
  return [...text.matchAll(correctionPattern)].flatMap((m) => numberList(tokens(m[1] ?? '')));
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : filesUnder(path);
    return e.isFile() && textFile.test(e.name) ? [path] : [];
  });
}

interface ScannedFile {
  path: string;
  text: string;
}

function scannedFiles(): ScannedFile[] {
  const paths = [
    ...scannedDirs.map((d) => join(repoRoot, d)).flatMap((d) => (statSync(d, { throwIfNoEntry: false }) ? filesUnder(d) : [])),
    ...scannedRootFiles.map((f) => join(repoRoot, f)).filter((p) => statSync(p, { throwIfNoEntry: false })),
  ];
  // This file's own examples are checked by the parser tests below.
  return paths.filter((p) => p !== thisFile).map((path) => ({ path: relative(repoRoot, path), text: readFileSync(path, 'utf8') }));
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

/** Every place a pattern matches, as `file:line: text`, for failure messages. */
function where(file: ScannedFile, pattern: RegExp, bad: (match: string) => boolean): string[] {
  return [...file.text.matchAll(pattern)]
    .filter((m) => bad(m[0]))
    .map((m) => `${file.path}:${lineOf(file.text, m.index)}: ${m[0].replace(/\s+/g, ' ')}`);
}

describe('docs/spec.md and the citations of it (SPEC 1 to 34, F1 to F23)', () => {
  const spec = parseSpec(readFileSync(specPath, 'utf8'));
  const files = scannedFiles();

  function unresolvedSpec(citation: SpecCitation): boolean {
    const entry = spec.entries.get(citation.entry);
    return entry === undefined || citation.steps.some((k) => !entry.steps.includes(k));
  }

  describe('the citation parser', () => {
    it('reads single entries, lists, ranges and steps', () => {
      expect(specCitations('see (SPEC 9).')).to.deep.equal([{ entry: 9, steps: [] }]);
      expect(specCitations('(SPEC 2, 3, 21)')).to.deep.equal([2, 3, 21].map((entry) => ({ entry, steps: [] })));
      expect(specCitations('SPEC 6 and 9, SPEC 22').map((c) => c.entry)).to.deep.equal([6, 9, 22]);
      expect(specCitations('SPEC 10 to 16, 19').map((c) => c.entry)).to.deep.equal([10, 11, 12, 13, 14, 15, 16, 19]);
      expect(specCitations('SPEC 16 to 10').map((c) => c.entry)).to.include(0);
      expect(specCitations('SPEC 13 step 5: the config write')).to.deep.equal([{ entry: 13, steps: [5] }]);
      expect(specCitations('(SPEC 13 steps 1 and 3, correction 2)')).to.deep.equal([{ entry: 13, steps: [1, 3] }]);
      expect(specCitations('SPEC 5 step 1, SPEC 14')).to.deep.equal([
        { entry: 5, steps: [1] },
        { entry: 14, steps: [] },
      ]);
    });

    it('follows a citation across a wrapped comment line', () => {
      expect(specCitations('one call (SPEC 5,\n// 21) per sweep').map((c) => c.entry)).to.deep.equal([5, 21]);
      expect(specCitations(' * (SPEC 11 and\n * 13)').map((c) => c.entry)).to.deep.equal([11, 13]);
    });

    it('ignores words that only start with SPEC, and SPEC.md', () => {
      expect(specCitations('SPECIFICATION 2, SPEC.md, SPEC n')).to.deep.equal([]);
    });

    it('reads facts and corrections, not look-alikes', () => {
      expect(factCitations('(F4, F12) and F1 to F23; KeyF5 0xF1 #F2 x.F3')).to.deep.equal([4, 12, 1, 23]);
      expect(correctionCitations('(corrections 1, 6, 9) and correction 2; Corrections 1 to 3')).to.deep.equal([1, 6, 9, 2, 1, 2, 3]);
    });
  });

  describe('the file', () => {
    it("has entries 1 to 34, each once and in order, under the Parts of SPEC.md (34, the tenants, is the project's own, in Part F)", () => {
      expect(spec.order).to.deep.equal(Array.from({ length: 34 }, (_, i) => i + 1));
      const partOf = (n: number): string => (spec.entries.get(n)?.part ?? '').slice(0, 'Part A'.length);
      const parts: Record<string, number[]> = {
        'Part A': [1, 2, 3, 4, 5, 6, 7, 8, 9],
        'Part B': [10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
        'Part C': [20],
        'Part D': [21, 22],
        'Part E': [23, 24, 25, 26, 27],
        'Part F': [28, 29, 30, 31, 32, 33, 34],
      };
      for (const [part, entries] of Object.entries(parts)) {
        expect(entries.map(partOf), part).to.deep.equal(entries.map(() => part));
      }
    });

    it("numbers each entry's steps from 1, one after the other", () => {
      for (const [n, entry] of spec.entries) {
        expect(entry.steps, `SPEC ${n}`).to.deep.equal(entry.steps.map((_, i) => i + 1));
      }
    });

    it('has the appendices: facts F1 to F23 and corrections 1 to 10, each once', () => {
      expect(spec.facts).to.deep.equal(Array.from({ length: 23 }, (_, i) => i + 1));
      expect(spec.corrections).to.deep.equal(Array.from({ length: 10 }, (_, i) => i + 1));
    });
  });

  describe('the citations in the repository', () => {
    it('are found where the code makes them', () => {
      for (const dir of ['src', 'jobs', 'test', 'docs']) {
        const cited = files.filter((f) => f.path.startsWith(dir + sep)).flatMap((f) => specCitations(f.text));
        expect(cited, `SPEC citations under ${dir}/`).to.not.be.empty;
      }
      expect(files.flatMap((f) => factCitations(f.text)), 'F citations').to.not.be.empty;
    });

    it('every SPEC n, and every step cited, is an entry of docs/spec.md', () => {
      const unresolved = files.flatMap((f) => where(f, specPattern, (m) => specCitations(m).some(unresolvedSpec)));
      expect(unresolved, `unresolved:\n${unresolved.join('\n')}\n`).to.be.empty;
    });

    it('every F<n> is in the facts appendix', () => {
      const unresolved = files.flatMap((f) => where(f, factPattern, (m) => factCitations(m).some((n) => !spec.facts.includes(n))));
      expect(unresolved, `unresolved:\n${unresolved.join('\n')}\n`).to.be.empty;
    });

    it('every correction n is in the corrections appendix', () => {
      const unresolved = files.flatMap((f) =>
        where(f, correctionPattern, (m) => correctionCitations(m).some((n) => !spec.corrections.includes(n))),
      );
      expect(unresolved, `unresolved:\n${unresolved.join('\n')}\n`).to.be.empty;
    });
  });
});
