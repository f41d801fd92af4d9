// A Stryker test runner that runs mocha in-process, TypeScript through tsx
// (the process is started with `--import tsx`), and reports which test
// covers which mutant (per-test coverage). It stands in for
// @stryker-mutator/mocha-runner, which cannot load mocha 12 (its CLI
// helpers became .cjs files) and whose 10.x needs Node 22: see
// docs/decisions.md.
import { resolve } from 'node:path';
import Mocha from 'mocha';
import { INSTRUMENTER_CONSTANTS } from '@stryker-mutator/api/core';
import type { InstrumenterContext, StrykerOptions } from '@stryker-mutator/api/core';
import { commonTokens, declareClassPlugin, PluginKind, tokens } from '@stryker-mutator/api/plugin';
import type { Logger } from '@stryker-mutator/api/logging';
import { DryRunStatus, TestStatus, determineHitLimitReached, toMutantRunResult } from '@stryker-mutator/api/test-runner';
import type {
  DryRunOptions,
  DryRunResult,
  MutantActivation,
  MutantRunOptions,
  MutantRunResult,
  TestResult,
  TestRunner,
  TestRunnerCapabilities,
} from '@stryker-mutator/api/test-runner';

/** The options this runner reads from Stryker's config. */
interface MochaTsxOptions extends StrykerOptions {
  mochaTsx: { spec: string[] };
}

type Namespace = Record<typeof INSTRUMENTER_CONSTANTS.NAMESPACE, InstrumenterContext | undefined>;

function instrumenterContext(): InstrumenterContext {
  const global = globalThis as unknown as Namespace;
  global.__stryker__ ??= {};
  return global.__stryker__;
}

/** The results of one mocha run, collected from its runner's events. */
class Results {
  readonly tests: TestResult[] = [];
  private last = Date.now();

  listen(runner: Mocha.Runner): void {
    const { EVENT_TEST_PASS, EVENT_TEST_FAIL } = Mocha.Runner.constants;
    runner.on(EVENT_TEST_PASS, (test: Mocha.Test) => {
      const title = test.fullTitle();
      this.tests.push({ id: title, name: title, status: TestStatus.Success, timeSpentMs: this.elapsed(), ...(test.file ? { fileName: test.file } : {}) });
    });
    runner.on(EVENT_TEST_FAIL, (test: Mocha.Runnable, err: Error) => {
      // A failing hook reports itself; its current test is the one it ran for.
      const title = test.ctx?.currentTest?.fullTitle() ?? test.fullTitle();
      this.tests.push({ id: title, name: title, status: TestStatus.Failed, timeSpentMs: this.elapsed(), failureMessage: err.message || (err.stack ?? 'no message') });
    });
  }

  private elapsed(): number {
    const now = Date.now();
    const spent = now - this.last;
    this.last = now;
    return spent;
  }
}

export class MochaTsxTestRunner implements TestRunner {
  static inject = tokens(commonTokens.logger, commonTokens.options);
  private readonly context = instrumenterContext();
  private readonly spec: string[];
  private mocha: Mocha | undefined;
  private loaded = false;
  private collectPerTest = false;

  constructor(
    private readonly log: Logger,
    options: StrykerOptions,
  ) {
    this.spec = (options as MochaTsxOptions).mochaTsx.spec.map((file) => resolve(file));
  }

  capabilities(): TestRunnerCapabilities {
    // Files come in through `import`: once loaded they cannot be reloaded, so Stryker restarts the process for static mutants.
    return { reloadEnvironment: false };
  }

  init(): Promise<void> {
    // Stryker times each run itself, so mocha's own timeout is off; Base reports nothing.
    const mocha = new Mocha({ timeout: 0, reporter: Mocha.reporters.Base });
    mocha.cleanReferencesAfterRun(false);
    for (const file of this.spec) mocha.addFile(file);
    const context = this.context;
    const perTest = (): boolean => this.collectPerTest;
    mocha.suite.beforeEach(function () {
      if (perTest()) context.currentTestId = this.currentTest?.fullTitle();
    });
    this.mocha = mocha;
    return Promise.resolve();
  }

  async dryRun(options: DryRunOptions): Promise<DryRunResult> {
    this.collectPerTest = options.coverageAnalysis === 'perTest';
    const result = await this.run(options.disableBail, undefined, 'runtime');
    this.collectPerTest = false;
    if (result.status === DryRunStatus.Complete && options.coverageAnalysis !== 'off') {
      return { ...result, ...(this.context.mutantCoverage ? { mutantCoverage: this.context.mutantCoverage } : {}) };
    }
    return result;
  }

  async mutantRun(options: MutantRunOptions): Promise<MutantRunResult> {
    this.context.hitLimit = options.hitLimit;
    this.context.hitCount = options.hitLimit === undefined ? undefined : 0;
    const mocha = this.mochaInstance();
    if (options.testFilter) {
      mocha.grep(new RegExp(options.testFilter.map((id) => `(^${escapeRegExp(id)}$)`).join('|')));
    } else {
      mocha.grep(/.*/);
    }
    return toMutantRunResult(await this.run(options.disableBail, options.activeMutant.id, options.mutantActivation));
  }

  dispose(): Promise<void> {
    try {
      this.mocha?.dispose();
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'ERR_MOCHA_INSTANCE_ALREADY_RUNNING') throw err;
    }
    return Promise.resolve();
  }

  private mochaInstance(): Mocha {
    if (!this.mocha) throw new Error('mocha-tsx runner used before init');
    return this.mocha;
  }

  private async run(disableBail: boolean, activeMutant: string | undefined, activation: MutantActivation): Promise<DryRunResult> {
    const mocha = this.mochaInstance();
    setBail(mocha.suite, !disableBail);
    try {
      if (!this.loaded) {
        // A static mutant acts while the files load; a runtime one only once the tests run.
        this.context.activeMutant = activation === 'static' ? activeMutant : undefined;
        await mocha.loadFilesAsync();
        this.loaded = true;
      }
      this.context.activeMutant = activeMutant;
      const results = new Results();
      await new Promise<void>((done) => {
        results.listen(mocha.run(() => done()));
      });
      const hitLimit = determineHitLimitReached(this.context.hitCount, this.context.hitLimit);
      if (hitLimit) return hitLimit;
      return { status: DryRunStatus.Complete, tests: results.tests };
    } catch (err) {
      this.log.error(`mocha run failed: ${String(err)}`);
      return { status: DryRunStatus.Error, errorMessage: String(err) };
    }
  }
}

function setBail(suite: Mocha.Suite, bail: boolean): void {
  suite.bail(bail);
  for (const child of suite.suites) setBail(child, bail);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export const strykerPlugins = [declareClassPlugin(PluginKind.TestRunner, 'mocha-tsx', MochaTsxTestRunner)];

export const strykerValidationSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    mochaTsx: {
      description: 'Options of the mocha-tsx test runner (scripts/mutation/mocha-runner.ts).',
      type: 'object',
      properties: { spec: { description: 'Test files to run, relative to the project.', type: 'array', items: { type: 'string' } } },
      required: ['spec'],
    },
  },
};
