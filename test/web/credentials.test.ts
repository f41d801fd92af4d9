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
import { newApiTokensFile, newBoardUsersFile } from '../../src/secrets/create-missing.js';
import { redactSecrets } from '../../src/secrets/redact.js';
import { MIN_SECRET_BITS, estimatedBits } from '../../src/secrets/strength.js';
import { SecretSet } from '../../src/web/auth/compare.js';
import { CredentialsError, loadCredentials, parseApiTokens, parseBoardUsers } from '../../src/web/auth/credentials.js';
import { DEFAULT_TENANT } from '../../src/tenants/types.js';

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

// Secrets of at least 128 bits (SPEC 24): 16 random bytes, in hex and in base64.
const TOKEN_1 = 'tok-9f86d081884c7d659a2feaa0c55ad015';
const TOKEN_2 = 'tok-2c26b46b68ffc68ff99b453c1d304134';
const PASSWORD_1 = 'pw-Xb9kQ2mV7rL4tN8cW1yZ5g';
const PASSWORD_2 = 'pw-Hq3sJ6pD0fK9uE2iO7aM4w';

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
    const token = credentials?.apiTokens[0]?.token ?? '';
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
    const token = credentials?.apiTokens[0]?.token ?? '';
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
    expect(parseApiTokens(`# ops\n${TOKEN_1}\n\n  ${TOKEN_2}  \n`, 'f')).to.deep.equal([
      { token: TOKEN_1, tenant: DEFAULT_TENANT },
      { token: TOKEN_2, tenant: DEFAULT_TENANT },
    ]);
    expect(parseBoardUsers(`ops:${PASSWORD_1}:with:colons\n# c\nadmin:${PASSWORD_2}\n`, 'f')).to.deep.equal([
      { user: 'ops', password: `${PASSWORD_1}:with:colons` },
      { user: 'admin', password: PASSWORD_2 },
    ]);
  });

  it('refuses a malformed users line by number, without echoing it', () => {
    const parse = (): unknown => parseBoardUsers(`admin:${PASSWORD_1}\nno-colon-secretish\n`, 'users');
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

describe('credentials under 128 bits (SPEC 24)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pvep-weak-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a short API token naming the key, the file and the line, never the token', () => {
    const parse = (): unknown => parseApiTokens(`# ops\n${TOKEN_1}\nweaktoken\n`, '/etc/pvep/tokens');
    expect(parse).to.throw(CredentialsError, /^http\.apiTokensFile \/etc\/pvep\/tokens line 3: the token holds at most about \d+ bits, fewer than the 128/);
    expect(parse).to.not.throw(/weaktoken/);
  });

  it('refuses a short board password (admin:pass1234) naming the key, the file and the line, never the password', () => {
    const parse = (): unknown => parseBoardUsers('admin:pass1234\n', '/etc/pvep/users');
    expect(parse).to.throw(CredentialsError, /^http\.boardUsersFile \/etc\/pvep\/users line 1: the password holds at most about \d+ bits/);
    expect(parse).to.not.throw(/pass1234/);
  });

  it('stops the start on a weak token file, even on the simulator defaults', async () => {
    const tokens = join(dir, 'tokens');
    writeFileSync(tokens, 'weaktoken\n', { mode: 0o600 });
    const config = loadConfig({ env: {}, overrides: { http: { apiTokensFile: tokens, boardUsersFile: join(dir, 'users') } } });
    const failure = await loadCredentials(config, captureLogger().logger).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).to.be.instanceOf(CredentialsError);
    expect((failure as Error).message).to.contain(tokens);
  });

  it('the files it creates for the simulator pass the rule', () => {
    expect(estimatedBits(newApiTokensFile().trim())).to.be.at.least(MIN_SECRET_BITS);
    expect(estimatedBits(newBoardUsersFile().trim().replace(/^admin:/, ''))).to.be.at.least(MIN_SECRET_BITS);
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
