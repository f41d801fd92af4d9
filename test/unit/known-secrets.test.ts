// SPEC 22: a web or worker process learns, at start, every secret its
// config names, used by it or not: each secret file, a board user's
// password alone, and the passwords in redis.url and webhooks.url; after
// that the redactor hides each. A file it cannot read is passed over.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import { learnSecretFiles } from '../../src/secrets/known-files.js';
import { redactSecrets } from '../../src/secrets/redact.js';

const unique = (what: string): string => `${what}-${randomBytes(8).toString('hex')}`;

describe('every secret of the config known to the redactor (SPEC 22)', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'pvep-known-secrets-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  function file(name: string, content: string): string {
    const path = join(dir, name);
    writeFileSync(path, `${content}\n`, { mode: 0o600 });
    return path;
  }

  it('learns each secret file, the board password alone and the URL passwords; passes over a file it cannot read', async () => {
    const proxmoxSecret = unique('pve');
    const secrets = {
      proxmoxToken: `root@pam!pvep=${proxmoxSecret}`,
      proxmoxSecret,
      redisPasswordFile: unique('redis-file'),
      apiToken: unique('api'),
      boardPassword: unique('board'),
      fingerprintKey: unique('fingerprint'),
      webhookSecret: unique('webhook'),
      redisUrlPassword: unique('redis-url'),
      webhookUrlPassword: unique('hook-url'),
    };
    const missing = join(dir, 'missing');
    const config = loadConfig({
      env: {},
      overrides: {
        proxmox: { tokenFile: file('proxmox-token', secrets.proxmoxToken) },
        redis: { url: `redis://app:${secrets.redisUrlPassword}@127.0.0.1:6379`, passwordFile: file('redis-password', secrets.redisPasswordFile) },
        http: {
          apiTokensFile: file('api-tokens', secrets.apiToken),
          boardUsersFile: file('board-users', `admin:${secrets.boardPassword}`),
          fingerprintKeyFile: file('fingerprint-key', secrets.fingerprintKey),
        },
        webhooks: { url: `https://hook:${secrets.webhookUrlPassword}@hooks.example/in`, secretFile: missing },
      },
    });
    // The token's secret part alone has no secret shape: only a process that read the file hides it.
    const text = Object.values(secrets).join(' | ');
    for (const [what, value] of Object.entries(secrets)) if (what !== 'proxmoxToken') expect(redactSecrets(text), what).to.include(value);

    const read = await learnSecretFiles(config);
    expect(read).to.not.include(missing);
    expect(read).to.have.length(5);
    const redacted = redactSecrets(text);
    for (const [what, value] of Object.entries(secrets)) {
      if (what !== 'webhookSecret') expect(redacted, what).to.not.include(value);
    }
    expect(redacted, 'the unread webhook secret file').to.include(secrets.webhookSecret);
  });

  it("learns each cluster's token file of proxmox.clusters (SPEC 32, issue 34)", async () => {
    const east = unique('east');
    const west = unique('west');
    const config = loadConfig({
      env: {},
      overrides: {
        proxmox: {
          clusters: [
            { name: 'east', url: 'https://pve-east.example:8006', tokenFile: file('east-token', `root@pam!pvep=${east}`) },
            { name: 'west', url: 'https://pve-west.example:8006', tokenFile: file('west-token', `root@pam!pvep=${west}`) },
          ],
        },
      },
    });
    await learnSecretFiles(config);
    const redacted = redactSecrets(`east ${east} west ${west}`);
    expect(redacted).to.not.include(east).and.to.not.include(west);
  });
});
