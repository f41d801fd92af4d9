// Self-signed certificates made with openssl for the TLS tests.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TlsMaterial } from './replay-server.js';

/** A self-signed certificate for `subjectAltName` (default: 127.0.0.1 and localhost), written to dir. */
export function makeCertificate(dir: string, label: string, subjectAltName = 'IP:127.0.0.1,DNS:localhost'): TlsMaterial & { certFile: string } {
  const keyFile = join(dir, `${label}.key`);
  const certFile = join(dir, `${label}.pem`);
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', certFile,
      '-days', '2', '-subj', `/CN=${label}`, '-addext', `subjectAltName=${subjectAltName}`],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}
