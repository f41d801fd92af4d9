// SPEC 6: bearer tokens and Bull Board users come from files named in
// config; on the simulator defaults a missing file is created (mode 0600,
// path logged, value never); elsewhere a missing file stops the start.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig, type Config } from '../../src/config/index.js';
import { createLogger } from '../../src/log.js';
import { redactSecrets } from '../../src/secrets/redact.js';
import { SecretSet } from '../../src/web/auth/compare.js';
import { CredentialsError, loadCredentials, parseApiTokens, parseBoardUsers } from '../../src/web/auth/credentials.js';

function captureLogger(): { logger: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger({ level: 'info', pretty: false, destination }), lines };
}

describe('web credentials (SPEC 6)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pvep-cred-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function configWith(overrides: Record<string, unknown>): Config {
    return loadConfig({
      env: {},
      overrides: { http: { apiTokensFile: join(dir, 'sub', 'api-tokens'), boardUsersFile: join(dir, 'sub', 'board-users'), ...overrides } },
    });
  }

  it('on the simulator defaults creates both files with a random value, mode 0600, and logs only the paths', async () => {
    const { logger, lines } = captureLogger();
    const config = configWith({});
    const credentials = await loadCredentials(config, logger);
    expect(credentials).to.not.equal(undefined);
    const token = credentials?.apiTokens[0] ?? '';
    const password = credentials?.boardUsers[0]?.password ?? '';
    expect(token).to.have.length.greaterThan(30);
    expect(credentials?.boardUsers[0]?.user).to.equal('admin');
    expect(password).to.have.length.greaterThan(30);
    for (const file of [config.http.apiTokensFile, config.http.boardUsersFile]) {
      expect(statSync(file).mode & 0o777).to.equal(0o600);
    }
    expect(readFileSync(config.http.apiTokensFile, 'utf8').trim()).to.equal(token);
    const log = lines.join('');
    expect(log).to.contain(config.http.apiTokensFile).and.to.contain(config.http.boardUsersFile);
    expect(log).to.not.contain(token).and.to.not.contain(password);
  });

  it('keeps an existing file and a second start reads the same values', async () => {
    const config = configWith({});
    const first = await loadCredentials(config, captureLogger().logger);
    const second = await loadCredentials(config, captureLogger().logger);
    expect(second).to.deep.equal(first);
  });

  it('registers the values it reads for redaction', async () => {
    const config = configWith({});
    const credentials = await loadCredentials(config, captureLogger().logger);
    const token = credentials?.apiTokens[0] ?? '';
    const password = credentials?.boardUsers[0]?.password ?? '';
    expect(redactSecrets(`x ${token} y ${password}`)).to.equal('x [REDACTED] y [REDACTED]');
  });

  it('against a real Proxmox refuses to start when a file is missing, naming the key and the form', async () => {
    const config = loadConfig({
      env: {},
      overrides: { proxmox: { url: 'https://pve.example:8006' }, http: { apiTokensFile: join(dir, 'none'), boardUsersFile: join(dir, 'none2') } },
    });
    const failure = await loadCredentials(config, captureLogger().logger).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).to.be.instanceOf(CredentialsError);
    expect((failure as Error).message).to.contain('http.apiTokensFile').and.to.contain(join(dir, 'none')).and.to.contain('one bearer token per line');
  });

  it('with http.authDisabled loads nothing and warns', async () => {
    const { logger, lines } = captureLogger();
    const credentials = await loadCredentials(configWith({ authDisabled: true }), logger);
    expect(credentials).to.equal(undefined);
    const warning = lines.map((l) => JSON.parse(l) as { level: number; msg: string }).find((l) => l.level === 40);
    expect(warning?.msg).to.contain('authDisabled');
  });

  it('parses tokens and users, skipping blank lines and comments; a password may hold colons', () => {
    expect(parseApiTokens('# ops\ntok-one-123\n\n  tok-two-456  \n', 'f')).to.deep.equal(['tok-one-123', 'tok-two-456']);
    expect(parseBoardUsers('ops:pa:ss:word\n# c\nadmin:secret-1\n', 'f')).to.deep.equal([
      { user: 'ops', password: 'pa:ss:word' },
      { user: 'admin', password: 'secret-1' },
    ]);
  });

  it('refuses a malformed users line by number, without echoing it', () => {
    const parse = (): unknown => parseBoardUsers('admin:ok-password\nno-colon-secretish\n', 'users');
    expect(parse).to.throw(CredentialsError, /line 2/);
    expect(parse).to.not.throw(/secretish/);
    expect(() => parseApiTokens('# only a comment\n', 'tokens')).to.throw(CredentialsError, /no token/);
  });

  it('an existing file with the wrong content stops the start, even on the simulator', async () => {
    const config = configWith({});
    writeFileSync(config.http.boardUsersFile.replace('/sub/', '/'), 'nocolon\n');
    const failure = await loadCredentials(configWith({ boardUsersFile: config.http.boardUsersFile.replace('/sub/', '/') }), captureLogger().logger).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).to.be.instanceOf(CredentialsError);
  });
});

describe('constant-time secret set', () => {
  it('accepts exactly the stored secrets, whatever the candidate length', () => {
    const set = new SecretSet(['alpha-token', 'beta-token']);
    expect(set.has('alpha-token')).to.equal(true);
    expect(set.has('beta-token')).to.equal(true);
    expect(set.has('alpha-toke')).to.equal(false);
    expect(set.has('alpha-token ')).to.equal(false);
    expect(set.has('')).to.equal(false);
    expect(set.has('x'.repeat(10_000))).to.equal(false);
  });
});
