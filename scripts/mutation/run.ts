// `npm run test:mutation [name...]`: Stryker over each module of
// modules.ts in turn, against that module's own tests, then one score line
// per module. Exits 1 when any module scores below its breakAt.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Stryker } from '@stryker-mutator/core';
import { MUTATED_MODULES } from './modules.js';
import type { MutatedModule } from './modules.js';

type StrykerOptions = NonNullable<ConstructorParameters<typeof Stryker>[0]>;
type MutantResult = Awaited<ReturnType<Stryker['runMutationTest']>>[number];

const OUTPUT = 'test-output/mutation';
/**
 * The checker's tsconfig: the mutated file and what it imports, not the
 * whole project, so each mutant's type check takes a fraction of the time.
 */
const CHECKER_TSCONFIG = 'tsconfig.mutation.json';
const RUNNER_PLUGIN = fileURLToPath(new URL('./mocha-runner.ts', import.meta.url));

/** The files a module mutates: its file and those its code was cut into. */
const mutatedFiles = (module: MutatedModule): string[] => [module.file, ...(module.also ?? [])];

function optionsFor(module: MutatedModule): StrykerOptions {
  const reports = `${OUTPUT}/${module.name}`;
  return {
    mutate: mutatedFiles(module),
    testRunner: 'mocha-tsx',
    // The tests (and this runner) are TypeScript, loaded through tsx as `npm test` does.
    testRunnerNodeArgs: ['--import', 'tsx'],
    checkerNodeArgs: ['--import', 'tsx'],
    mochaTsx: { spec: module.tests },
    checkers: ['typescript'],
    tsconfigFile: CHECKER_TSCONFIG,
    coverageAnalysis: 'perTest',
    // Two cores, shared with other test runs.
    concurrency: 2,
    timeoutMS: 10_000,
    tempDirName: '.stryker-tmp',
    ignorePatterns: ['dist', 'test-output', 'var', 'coverage', '.stryker-tmp'],
    reporters: ['html', 'json', 'progress'],
    htmlReporter: { fileName: `${reports}/index.html` },
    jsonReporter: { fileName: `${reports}/mutation.json` },
    thresholds: { high: 90, low: module.breakAt, break: module.breakAt },
    plugins: ['@stryker-mutator/typescript-checker', RUNNER_PLUGIN],
  };
}

interface Score {
  module: MutatedModule;
  killed: number;
  survived: number;
  noCoverage: number;
  timedOut: number;
  ignored: number;
  invalid: number;
  /** Stryker's mutation score: (killed + timed out) / (those + survived + no coverage). */
  percent: number;
}

function scoreOf(module: MutatedModule, results: MutantResult[]): Score {
  const count = (...statuses: string[]): number => results.filter((r) => statuses.includes(r.status)).length;
  const killed = count('Killed');
  const timedOut = count('Timeout');
  const survived = count('Survived');
  const noCoverage = count('NoCoverage');
  const valid = killed + timedOut + survived + noCoverage;
  return {
    module,
    killed,
    survived,
    noCoverage,
    timedOut,
    ignored: count('Ignored'),
    invalid: count('CompileError', 'RuntimeError'),
    percent: valid === 0 ? 100 : (100 * (killed + timedOut)) / valid,
  };
}

function line(s: Score): string {
  const verdict = s.percent >= s.module.breakAt ? 'ok' : `BELOW ${s.module.breakAt}`;
  return [
    s.module.file.padEnd(28),
    `${s.percent.toFixed(2).padStart(6)}%`,
    `killed ${s.killed + s.timedOut}`,
    `survived ${s.survived}`,
    `no coverage ${s.noCoverage}`,
    `ignored ${s.ignored}`,
    `invalid ${s.invalid}`,
    verdict,
  ].join('  ');
}

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !MUTATED_MODULES.some((m) => m.name === name));
if (unknown.length > 0) {
  console.error(`unknown module(s): ${unknown.join(', ')}; known: ${MUTATED_MODULES.map((m) => m.name).join(', ')}`);
  process.exit(2);
}
const modules = wanted.length === 0 ? MUTATED_MODULES : MUTATED_MODULES.filter((m) => wanted.includes(m.name));

const scores: Score[] = [];
for (const module of modules) {
  const started = Date.now();
  console.log(`\n== ${module.name}: ${mutatedFiles(module).join(', ')} against ${module.tests.join(', ')}`);
  writeFileSync(CHECKER_TSCONFIG, `${JSON.stringify({ extends: './tsconfig.json', include: [], files: mutatedFiles(module) }, null, 2)}\n`);
  const results = await new Stryker(optionsFor(module)).runMutationTest().finally(() => rmSync(CHECKER_TSCONFIG, { force: true }));
  const score = scoreOf(module, results);
  scores.push(score);
  console.log(`${line(score)}  (${Math.round((Date.now() - started) / 1000)} s)`);
}

console.log('\nMutation scores (each module against its own tests):');
for (const score of scores) console.log(line(score));
mkdirSync(OUTPUT, { recursive: true });
writeFileSync(
  `${OUTPUT}/scores.json`,
  `${JSON.stringify(scores.map((s) => ({ ...s, module: s.module.name, file: s.module.file })), null, 2)}\n`,
);
console.log(`HTML reports: ${OUTPUT}/<module>/index.html`);
process.exitCode = scores.every((s) => s.percent >= s.module.breakAt) ? 0 : 1;
