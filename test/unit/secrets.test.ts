// SPEC 7, 9, 18: secrets are read from files named by config, trimmed,
// and every value read is redacted from then on; secret shapes are
// redacted whatever their value.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REDACTED, redactSecrets } from '../../src/secrets/redact.js';
import { SecretFileError, readSecretFile, readSecretFileSync } from '../../src/secrets/read.js';

describe('secret files and redaction', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'pve-secrets-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function file(name: string, content: string): string {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  }

  it('reads a token trimmed and redacts it, and its secret part alone, from then on', async () => {
    const secret = randomUUID();
    const token = `root@pam!provisioner=${secret}`;
    expect(redactSecrets(`x ${secret} y`)).to.equal(`x ${secret} y`);
    expect(await readSecretFile(file('token', `  ${token}\n\n`))).to.equal(token);
    expect(redactSecrets(`x ${secret} y`)).to.equal(`x ${REDACTED} y`);
    expect(redactSecrets(`token ${token}`)).to.not.contain(secret);
  });

  it('redacts every line of a multi-line file', () => {
    const first = randomUUID();
    const second = randomUUID();
    readSecretFileSync(file('tokens', `${first}\n${second}\n`));
    expect(redactSecrets(`${first} and ${second}`)).to.equal(`${REDACTED} and ${REDACTED}`);
  });

  it('a missing file is a SecretFileError naming the path and the code', async () => {
    const path = join(dir, 'absent');
    const err = await readSecretFile(path).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(SecretFileError);
    expect(err).to.include({ path, code: 'ENOENT' });
    expect((err as Error).message).to.contain(path);
    expect(() => readSecretFileSync(path)).to.throw(SecretFileError);
  });

  it('an empty or blank file is refused (EEMPTY)', async () => {
    const err = await readSecretFile(file('blank', ' \n\t\n')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.include({ code: 'EEMPTY' });
  });

  it('does not register values shorter than 6 characters (they would shred ordinary text)', async () => {
    await readSecretFile(file('short', 'pve\n'));
    expect(redactSecrets('pve-provisioner on pve1')).to.equal('pve-provisioner on pve1');
  });

  it('redacts secret shapes whatever their value', () => {
    expect(redactSecrets('Authorization: PVEAPIToken=a@pam!b=c-d-e')).to.equal(`Authorization: PVEAPIToken=${REDACTED}`);
    expect(redactSecrets('token ops@pve!ci=0123456789 used')).to.equal(`token ops@pve!ci=${REDACTED} used`);
    expect(redactSecrets('Authorization: Bearer abc.def.ghi')).to.equal(`Authorization: Bearer ${REDACTED}`);
    expect(redactSecrets('redis://user:hunter22@127.0.0.1:6379')).to.equal(`redis://user:${REDACTED}@127.0.0.1:6379`);
  });

  it('leaves text without secrets untouched', () => {
    const text = "Configuration file 'nodes/pv1-1/qemu-server/999999.conf' does not exist";
    expect(redactSecrets(text)).to.equal(text);
  });
});
