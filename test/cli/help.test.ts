// SPEC 6, 27: `--help` and `-h` on every subcommand print its usage on
// stdout and exit 0, before any config, Redis or port is touched; an
// unknown flag is one line naming it, then the usage, exit 2, never
// Node's parseArgs text.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsx = pathToFileURL(join(repo, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

/** Every subcommand, with the arguments that come before a flag (enqueue takes its job first). */
const COMMANDS: [string, string[]][] = [
  ['worker', []],
  ['web', []],
  ['all', []],
  ['sim', []],
  ['seed', []],
  ['enqueue', ['create', '--name', 'x']],
  ['reconcile', []],
  ['health', []],
  ['list', []],
  ['get', ['demo-1']],
  ['pools', []],
  ['clusters', []],
  ['verify', []],
];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', tsx, join(repo, 'src', 'cli.ts'), ...args],
      // A Redis and a config that do not exist: --help must not need them.
      { cwd, env: { ...process.env, REDIS_URL: 'redis://127.0.0.1:1', PVE_PROVISIONER_CONFIG: '', LOG_LEVEL: 'warn' }, timeout: 30_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs them two at a time: the machine's two cores are shared. */
async function all(runs: string[][], cwd: string): Promise<Run[]> {
  const results: Run[] = new Array<Run>(runs.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < runs.length) {
      const index = next;
      next += 1;
      results[index] = await cli(runs[index] ?? [], cwd);
    }
  };
  await Promise.all([lane(), lane()]);
  return results;
}

describe('--help and unknown flags on every subcommand (SPEC 6, 27)', function () {
  this.timeout(240_000);
  let cwd: string;
  const runs = new Map<string, Run>();
  const key = (args: string[]): string => args.join(' ');

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'pvep-help-'));
    const wanted = COMMANDS.flatMap(([command, lead]) => [
      [command, '--help'],
      [command, '-h'],
      [command, ...lead, '--bogus-flag'],
    ]);
    wanted.push(['help', 'reconcile']);
    const results = await all(wanted, cwd);
    wanted.forEach((args, i) => runs.set(key(args), results[i] as Run));
  });
  after(() => rmSync(cwd, { recursive: true, force: true }));

  for (const [command, lead] of COMMANDS) {
    for (const flag of ['--help', '-h']) {
      it(`${command} ${flag} prints its usage and exits 0`, () => {
        const run = runs.get(key([command, flag]));
        expect(run?.code, run?.stderr).to.equal(0);
        expect(run?.stdout).to.match(new RegExp(`^usage: pve-provisioner ${command}\\b`));
        expect(run?.stderr).to.equal('');
      });
    }

    it(`${command} with an unknown flag names it in one line, then the usage, exit 2`, () => {
      const run = runs.get(key([command, ...lead, '--bogus-flag']));
      expect(run?.code).to.equal(2);
      const [first, second] = (run?.stderr ?? '').split('\n');
      expect(first).to.equal(`pve-provisioner ${command}: unknown flag --bogus-flag`);
      expect(second).to.match(new RegExp(`^usage: pve-provisioner ${command}\\b`));
      expect(run?.stderr).to.not.match(/ERR_PARSE_ARGS|To specify a positional argument|\n\s+at /);
    });
  }

  it('help COMMAND is COMMAND --help', () => {
    expect(runs.get('help reconcile')?.stdout).to.equal(runs.get('reconcile --help')?.stdout);
  });
});
