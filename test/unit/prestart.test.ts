// SPEC 6: `npm start` builds only when a source is newer than the build.
// The repo's own prestart (package.json) runs in a small project laid out
// like this one, whose `build` script writes the two build outputs and
// counts its runs: a first start builds, a start with nothing changed does
// not, a changed or deleted source (src/, jobs/, package.json, a tsconfig)
// builds again, and a build that fails stops the start.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { repoRoot } from '../support/readme.js';

const OUTPUTS = ['dist/src/cli.js', 'packages/client/dist/src/client.js'];

// Like tsc without noEmitOnError, a failing build still writes its outputs.
const BUILD = `const fs = require('node:fs');
for (const out of ${JSON.stringify(OUTPUTS)}) { fs.mkdirSync(require('node:path').dirname(out), { recursive: true }); fs.writeFileSync(out, ''); }
if (fs.existsSync('fail-build')) process.exit(3);
fs.appendFileSync('builds.log', 'built\\n');
`;

function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

function prestart(cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('npm', ['run', '-s', 'prestart'], { cwd, timeout: 60_000 }, (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, output: `${stdout}${stderr}` }));
  });
}

/** Sets a path's mtime `seconds` from now (negative: in the past). */
function age(path: string, seconds: number): void {
  const when = new Date(Date.now() + seconds * 1000);
  utimesSync(path, when, when);
}

describe('npm start builds only when the sources are newer than dist/ (SPEC 6)', function () {
  this.timeout(120_000);
  let root: string;
  const builds = (): number => (existsSync(join(root, 'builds.log')) ? readFileSync(join(root, 'builds.log'), 'utf8').split('\n').filter(Boolean).length : 0);
  /** Puts every source two minutes and the last build one minute in the past, so only what a test touches next is newer. */
  const buildLongAgo = (): void => {
    const walk = (path: string): void => {
      if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
      age(path, -120);
    };
    walk(root);
    OUTPUTS.forEach((out) => age(join(root, out), -60));
  };

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'pvep-prestart-'));
    const { scripts } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    write(root, 'package.json', JSON.stringify({ name: 'prestart-fixture', private: true, scripts: { build: 'node build.cjs', prestart: scripts.prestart } }));
    write(root, 'build.cjs', BUILD);
    mkdirSync(join(root, 'scripts'));
    copyFileSync(join(repoRoot, 'scripts', 'build-if-stale.mjs'), join(root, 'scripts', 'build-if-stale.mjs'));
    for (const source of ['src/cli.ts', 'src/cli/all.ts', 'jobs/schema.ts', 'jobs/old.ts', 'tsconfig.json', 'tsconfig.build.json', 'packages/client/tsconfig.json']) write(root, source, '');
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('builds on the first start, when there is no build', async () => {
    expect(await prestart(root)).to.deep.include({ code: 0 });
    expect(builds()).to.equal(1);
  });

  it('does not build again when nothing changed since the build', async () => {
    buildLongAgo();
    const ran = await prestart(root);
    expect(ran.code, ran.output).to.equal(0);
    expect(builds(), ran.output).to.equal(1);
  });

  it('builds when a file under src/ is newer than the build, then not again', async () => {
    buildLongAgo();
    age(join(root, 'src', 'cli', 'all.ts'), 0);
    await prestart(root);
    expect(builds()).to.equal(2);
    await prestart(root);
    expect(builds()).to.equal(2);
  });

  it('builds when a file of jobs/ is deleted, or a tsconfig or package.json changes', async () => {
    buildLongAgo();
    rmSync(join(root, 'jobs', 'old.ts'));
    await prestart(root);
    expect(builds()).to.equal(3);
    for (const file of ['tsconfig.build.json', 'package.json']) {
      buildLongAgo();
      age(join(root, file), 0);
      await prestart(root);
    }
    expect(builds()).to.equal(5);
  });

  it("the README's way to run the CLI without npx is the package's bin", () => {
    const { bin } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    expect(readme).to.contain(`alias pve-provisioner="node $PWD/${bin['pve-provisioner'] ?? 'no bin'}"`);
  });

  it('stops the start when the build fails', async () => {
    buildLongAgo();
    age(join(root, 'src', 'cli.ts'), 0);
    write(root, 'fail-build', '');
    const ran = await prestart(root);
    rmSync(join(root, 'fail-build'));
    expect(ran.code, ran.output).to.not.equal(0);
  });

  it('builds again on the start after a failed build, though the failed build wrote its outputs', async () => {
    buildLongAgo();
    age(join(root, 'src', 'cli.ts'), 0);
    write(root, 'fail-build', '');
    await prestart(root);
    rmSync(join(root, 'fail-build'));
    const before = builds();
    const ran = await prestart(root);
    expect(ran.code, ran.output).to.equal(0);
    expect(builds(), ran.output).to.equal(before + 1);
  });
});
