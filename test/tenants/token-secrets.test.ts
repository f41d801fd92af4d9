// SPEC 22, 34: a token followed by its tenant's words is still a secret
// on its own: the web process that reads the tokens file, and every
// process that learns the config's secret files, redact the token alone.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { learnSecretFiles } from '../../src/secrets/known-files.js';
import { redactSecrets } from '../../src/secrets/redact.js';
import { loadCredentials } from '../../src/web/auth/credentials.js';

describe('a token with tenant words, redacted alone (SPEC 22, 34)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'pvep-token-secrets-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function configWithToken(token: string) {
    const tokens = join(dir, 'api-tokens');
    writeFileSync(tokens, `# acme\n${token}\ttenant=acme scope=write vms=2\n`, { mode: 0o600 });
    writeFileSync(join(dir, 'board-users'), `ops:pw-${randomBytes(16).toString('hex')}\n`, { mode: 0o600 });
    return loadConfig({ env: {}, overrides: { http: { apiTokensFile: tokens, boardUsersFile: join(dir, 'board-users') } } });
  }

  it('the web process reading its tokens file', async () => {
    const token = `web-${randomBytes(16).toString('hex')}`;
    const credentials = await loadCredentials(configWithToken(token), silentLogger());
    expect(credentials?.apiTokens.map((t) => t.tenant.name)).to.deep.equal(['acme']);
    expect(redactSecrets(`pasted ${token} here`)).to.equal('pasted [REDACTED] here');
  });

  it('any process learning the secret files', async () => {
    const token = `any-${randomBytes(16).toString('hex')}`;
    await learnSecretFiles(configWithToken(token));
    expect(redactSecrets(`pasted ${token} here`)).to.equal('pasted [REDACTED] here');
  });
});
