// SPEC 24: a secret file open to group or others is one warn line naming
// the file and the chmod to run; a webhook key under 128 bits stops the
// worker's start naming webhooks.secretFile; the 128-bit estimate refuses
// short or plain secrets and passes 16 random bytes however written.
import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/config/index.js';
import { logOpenSecretFilesTo } from '../../src/secrets/file-mode.js';
import { readSecretFile, readSecretFileSync } from '../../src/secrets/read.js';
import { MIN_SECRET_BITS, estimatedBits } from '../../src/secrets/strength.js';
import { readWebhookSecret } from '../../src/worker/webhook-worker.js';
import { captureLogger } from '../support/capture-logger.js';

describe('secret files (SPEC 24)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pvep-secret-files-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function secretFile(name: string, mode: number, value = randomBytes(32).toString('base64url')): string {
    const path = join(dir, name);
    writeFileSync(path, `${value}\n`);
    chmodSync(path, mode);
    return path;
  }

  /** The warnings about this test's files: ones other tests' reads left waiting for a logger are flushed to it too. */
  const warningsAbout = (records: Record<string, unknown>[]): Record<string, unknown>[] =>
    records.filter((r) => r.level === 40 && typeof r.file === 'string' && r.file.startsWith(dir));

  it('warns once about a file others may read, naming the file, its mode and the chmod to run, and still reads it', async () => {
    const { logger, records } = captureLogger();
    logOpenSecretFilesTo(logger);
    const path = secretFile('token', 0o666, 'an-open-secret-value-of-enough-length-1234');
    expect(await readSecretFile(path)).to.equal('an-open-secret-value-of-enough-length-1234');
    await readSecretFile(path);
    readSecretFileSync(path);
    const warnings = warningsAbout(records);
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.include({ file: path, mode: '0666' });
    expect(String(warnings[0]?.msg)).to.equal(`secret file ${path} has mode 0666: group and others may read and change it; run: chmod 600 ${path}`);
    expect(JSON.stringify(records)).to.not.contain('an-open-secret-value');
  });

  it('warns about a file only its group may read, and says nothing of one at 0600 or 0400', async () => {
    const { logger, records } = captureLogger();
    logOpenSecretFilesTo(logger);
    const group = secretFile('group', 0o640);
    await readSecretFile(secretFile('private', 0o600));
    await readSecretFile(secretFile('read-only', 0o400));
    readSecretFileSync(group);
    expect(warningsAbout(records).map((r) => r.msg)).to.deep.equal([`secret file ${group} has mode 0640: group may read it; run: chmod 600 ${group}`]);
  });

  it('a webhook key under 128 bits stops the worker naming webhooks.secretFile and the file, never the key', () => {
    const path = secretFile('webhook-secret', 0o600, 'hunter2hunter2');
    const read = (): string => readWebhookSecret({ webhooks: { url: 'http://127.0.0.1:9/h', secretFile: path, attempts: 1, backoffMs: 1, timeoutMs: 1, concurrency: 1 } });
    expect(read).to.throw(ConfigError, /^invalid configuration: webhooks\.secretFile: .* holds at most about \d+ bits, fewer than the 128/);
    expect(read).to.throw(path);
    expect(read).to.not.throw(/hunter2/);
    const strong = secretFile('webhook-strong', 0o600, randomBytes(32).toString('hex'));
    expect(readWebhookSecret({ webhooks: { url: 'http://127.0.0.1:9/h', secretFile: strong, attempts: 1, backoffMs: 1, timeoutMs: 1, concurrency: 1 } })).to.have.length(64);
  });

  it('the 128-bit estimate refuses short or plain secrets and passes 16 random bytes in hex, base64 or a UUID', () => {
    for (const weak of ['weaktoken', 'pass1234', 'correct-horse', 'Tr0ub4dor&3', 'a'.repeat(20)]) expect(estimatedBits(weak), weak).to.be.below(MIN_SECRET_BITS);
    for (const strong of [randomBytes(16).toString('hex'), randomBytes(16).toString('base64'), randomBytes(32).toString('base64url'), randomUUID()]) {
      expect(estimatedBits(strong), strong).to.be.at.least(MIN_SECRET_BITS);
    }
  });
});
