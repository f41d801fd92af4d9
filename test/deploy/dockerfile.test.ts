// SPEC 6, 24: the image's default command, run as the image's non-root
// user, can create the files it writes on its first start (the API
// tokens, Bull Board users, the simulator's token and state under var/
// of the working directory). No Docker daemon runs here, so the runtime
// stage is simulated: its WORKDIR made as Docker makes it (root's, 0755),
// its RUN steps' `mkdir -p`, `chown` and `chmod` applied under a temp
// root, then the service's own secret-file writer run there as uid 1000
// (the official node image's `node` user).
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, posix } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../../src/config/index.js';
import { withSimStateFile } from '../../src/cli/all.js';
import { repoRoot } from '../support/readme.js';

/** The official node image's `node` user and group. */
const NODE_USER = { uid: 1000, gid: 1000 };

interface RuntimeStage {
  workdir: string;
  user: string;
  cmd: string[];
  run: string[];
}

/** The last stage of the Dockerfile: its WORKDIR, USER, CMD and RUN commands (continuations joined). */
function runtimeStage(): RuntimeStage {
  const text = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const lines = text.split('\n').filter((line) => !line.trimStart().startsWith('#'));
  const stage = lines.slice(lines.map((line) => /^FROM\s/i.test(line)).lastIndexOf(true));
  const last = (instruction: string): string | undefined =>
    stage
      .filter((line) => line.toUpperCase().startsWith(`${instruction} `))
      .map((line) => line.slice(instruction.length + 1).trim())
      .at(-1);
  return {
    workdir: last('WORKDIR') ?? '/',
    user: last('USER') ?? 'root',
    cmd: JSON.parse(last('CMD') ?? '[]') as string[],
    run: stage.filter((line) => line.toUpperCase().startsWith('RUN ')).map((line) => line.slice(4)),
  };
}

/** Applies the RUN steps' `mkdir -p`, `chown` and `chmod` (the file-system part of the stage) under `root`. */
function applyFileSteps(run: readonly string[], root: string, user: string): void {
  for (const command of run.flatMap((line) => line.split('&&')).map((c) => c.trim().split(/\s+/))) {
    const [verb, ...args] = command;
    const paths = args.filter((a) => isAbsolute(a)).map((a) => join(root, a));
    if (verb === 'mkdir') for (const path of paths) mkdirSync(path, { recursive: true, mode: 0o755 });
    if (verb === 'chown' && args[0] === `${user}:${user}`) for (const path of paths) chownSync(path, NODE_USER.uid, NODE_USER.gid);
    const mode = args[0];
    if (verb === 'chmod' && mode !== undefined && /^[0-7]{3,4}$/.test(mode)) for (const path of paths) chmodSync(path, parseInt(mode, 8));
  }
}

function runAs(uid: number, gid: number, cwd: string, script: string): Promise<{ code: number; stderr: string }> {
  const tsx = pathToFileURL(join(repoRoot, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', tsx, '--input-type=module', '-e', script], { cwd, uid, gid, timeout: 60_000, env: { ...process.env, HOME: cwd } }, (err, _stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stderr }),
    );
  });
}

describe('the Dockerfile (SPEC 6, 24)', function () {
  this.timeout(90_000);
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'pvep-image-'));
    chmodSync(root, 0o755);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("runs `all` by default as the non-root user node", () => {
    const stage = runtimeStage();
    expect(stage.user).to.equal('node');
    expect(stage.cmd).to.deep.equal(['node', 'dist/src/cli.js', 'all']);
  });

  it('lets that user create the files the default command writes under its working directory, and keeps them from others', async function () {
    if (process.getuid?.() !== 0) this.skip(); // chown and the switch to uid 1000 need root, as npm test runs here.
    const stage = runtimeStage();
    const config = withSimStateFile(loadConfig({ env: {} }), {});
    const files = [config.http.apiTokensFile, config.http.boardUsersFile, config.proxmox.tokenFile, config.sim.stateFile];
    expect(files.every((file) => !isAbsolute(file)), files.join(' ')).to.equal(true);

    mkdirSync(join(root, stage.workdir), { recursive: true, mode: 0o755 });
    applyFileSteps(stage.run, root, stage.user);
    const writer = pathToFileURL(join(repoRoot, 'src', 'secrets', 'create-missing.ts')).href;
    const script = `import { createSecretFileIfMissing } from ${JSON.stringify(writer)};
for (const file of ${JSON.stringify(files)}) await createSecretFileIfMissing(file, () => 'x\\n');`;
    const ran = await runAs(NODE_USER.uid, NODE_USER.gid, join(root, stage.workdir), script);
    expect(ran, ran.stderr).to.deep.include({ code: 0 });
    for (const file of files) expect(readFileSync(join(root, stage.workdir, file), 'utf8'), file).to.equal('x\n');
    for (const dir of new Set(files.map((file) => posix.dirname(file)))) {
      const { mode, uid } = statSync(join(root, stage.workdir, dir));
      expect({ dir, uid, mode: (mode & 0o777).toString(8) }).to.deep.equal({ dir, uid: NODE_USER.uid, mode: '700' });
    }
  });
});
