// SPEC 24: the web process's fingerprint key (http.fingerprintKeyFile) is
// created with a random key (mode 0600) on the simulator defaults, kept
// when present, and required anywhere else: a missing file stops the
// start naming the key and the file.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { CredentialsError } from '../../src/web/auth/credentials.js';
import { ensureFingerprintKey } from '../../src/web/fingerprint-key.js';
import { rejection } from '../support/rejection.js';

describe('the fingerprint key file (SPEC 24)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'pvep-fpkey-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const configFor = (url: string, file: string): ReturnType<typeof loadConfig> =>
    loadConfig({ env: {}, overrides: { proxmox: { url }, http: { fingerprintKeyFile: file } } });

  it('on the simulator, a missing file is created with a random key at mode 0600, and kept afterwards', async () => {
    const file = join(dir, 'var', 'fingerprint-key');
    await ensureFingerprintKey(configFor('sim', file), silentLogger());
    const key = readFileSync(file, 'utf8').trim();
    expect(key).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    await ensureFingerprintKey(configFor('sim', file), silentLogger());
    expect(readFileSync(file, 'utf8').trim()).to.equal(key);
  });

  it('outside the simulator, a missing file stops the start naming the key and the file, and creates nothing', async () => {
    const file = join(dir, 'fingerprint-key');
    const err = await rejection(ensureFingerprintKey(configFor('https://pve.example:8006', file), silentLogger()));
    expect(err).to.be.instanceOf(CredentialsError);
    expect(err.message).to.include('http.fingerprintKeyFile').and.include(file).and.include('ENOENT');
    expect(() => statSync(file)).to.throw();
  });

  it('outside the simulator, a present file is accepted', async () => {
    const file = join(dir, 'fingerprint-key');
    writeFileSync(file, 'a-deployment-key-0123456789abcdef\n', { mode: 0o600 });
    await ensureFingerprintKey(configFor('https://pve.example:8006', file), silentLogger());
  });
});
