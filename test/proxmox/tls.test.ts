// SPEC 17, 18: the CA file is loaded on first use and cached once it
// loads; missing is Transient, no certificate is Permanent, a failed
// verification is Permanent; TLS offers HTTP/1.1 only (F18).
import { expect } from 'chai';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { classOf } from '../../src/errors.js';
import { classifyError, kindOf } from '../../src/proxmox/classify.js';
import { startReplayServer } from '../support/replay-server.js';
import type { ReplayServer } from '../support/replay-server.js';
import { makeCertificate } from '../support/tls.js';
import { workspace } from './support.js';
import type { Workspace } from './support.js';
import { rejection } from '../support/rejection.js';

describe('TLS and the CA file (SPEC 18)', () => {
  let ws: Workspace;
  let server: ReplayServer;
  let serverCert: { certFile: string };
  let caFile: string;

  before(async () => {
    ws = workspace();
    const material = makeCertificate(ws.dir, 'pv1-1');
    serverCert = material;
    server = await startReplayServer(() => 'version', material);
  });
  after(async () => {
    await server.close();
    ws.remove();
  });
  beforeEach(() => {
    caFile = join(ws.dir, `ca-${Math.random().toString(16).slice(2)}.pem`);
    server.requests.length = 0;
  });

  it('verifies the server against the CA file and speaks HTTP/1.1 with no h2 in ALPN', async () => {
    copyFileSync(serverCert.certFile, caFile);
    const version = await ws.client(server.url, { caFile }).version();
    expect(version.release).to.equal('9.2');
    expect(server.requests[0]?.httpVersion).to.equal('1.1');
    // The server offers h2 and http/1.1; the client must settle on http/1.1.
    expect(server.alpn.at(-1)).to.equal('http/1.1');
  });

  it('a missing CA file is Transient and the CA loads once the file appears', async () => {
    const api = ws.client(server.url, { caFile });
    const err = await rejection(api.version());
    expect(classOf(err)).to.equal('Transient');
    expect(classifyError(err).reason).to.contain(caFile).and.contain('missing');
    expect(server.requests).to.have.length(0);
    copyFileSync(serverCert.certFile, caFile);
    expect((await api.version()).version).to.equal('9.2.20');
  });

  it('the CA is cached once loaded: a later broken file does not matter', async () => {
    copyFileSync(serverCert.certFile, caFile);
    const api = ws.client(server.url, { caFile });
    await api.version();
    writeFileSync(caFile, 'garbage\n');
    expect((await api.version()).release).to.equal('9.2');
  });

  it('a CA file with no certificate is Permanent (CertificateInvalid)', async () => {
    writeFileSync(caFile, 'this is not a certificate\n');
    const err = await rejection(ws.client(server.url, { caFile }).version());
    expect(classOf(err)).to.equal('Permanent');
    expect(kindOf(err)).to.equal('CertificateInvalid');
    expect(classifyError(err).reason).to.contain('holds no PEM certificate');
  });

  it('a certificate block that does not parse is Permanent', async () => {
    writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n');
    const err = await rejection(ws.client(server.url, { caFile }).version());
    expect(classOf(err)).to.equal('Permanent');
  });

  it('a server certificate the CA did not sign is Permanent (CertificateInvalid)', async () => {
    copyFileSync(makeCertificate(ws.dir, 'other-ca').certFile, caFile);
    const err = await rejection(ws.client(server.url, { caFile }).version());
    expect(classOf(err)).to.equal('Permanent');
    expect(kindOf(err)).to.equal('CertificateInvalid');
    expect(classifyError(err).reason).to.contain('TLS verification failed');
  });

  it('a certificate for another host name is Permanent', async () => {
    const wrongName = makeCertificate(ws.dir, 'wrong-name', 'DNS:pv1-1.home.lab');
    const local = await startReplayServer(() => 'version', wrongName);
    try {
      copyFileSync(wrongName.certFile, caFile);
      const err = await rejection(ws.client(local.url, { caFile }).version());
      expect(classOf(err)).to.equal('Permanent');
      expect(kindOf(err)).to.equal('CertificateInvalid');
    } finally {
      await local.close();
    }
  });

  it('without a CA file a self-signed server fails verification against the system CAs', async () => {
    const err = await rejection(ws.client(server.url).version());
    expect(classOf(err)).to.equal('Permanent');
  });
});
