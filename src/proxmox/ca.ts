// The CA file is loaded on first use and cached only once it loads
// (SPEC 18), so the service can start before the file lands. Missing:
// Transient (it may appear). Present but holding no certificate:
// Permanent (SPEC 17).
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ProxmoxPermanentError, ProxmoxTransientError } from './failure.js';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

export interface CaLoader {
  /** The PEM certificates of the file, read once the file exists. */
  load(): Promise<string>;
}

function certificatesIn(text: string, caFile: string): string {
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) {
    const reason = `certificate invalid: proxmox.caFile ${caFile} holds no PEM certificate`;
    throw new ProxmoxPermanentError(`no certificate in CA file ${caFile}`, { reason, kind: 'CertificateInvalid' });
  }
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch (err) {
      const reason = `certificate invalid: proxmox.caFile ${caFile} holds a certificate that does not parse`;
      throw new ProxmoxPermanentError(`bad certificate in CA file ${caFile}`, { reason, cause: err, kind: 'CertificateInvalid' });
    }
  }
  return blocks.join('\n');
}

export function createCaLoader(caFile: string): CaLoader {
  let cached: string | undefined;
  return {
    async load(): Promise<string> {
      if (cached !== undefined) return cached;
      let text: string;
      try {
        text = await readFile(caFile, 'utf8');
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
        const what = code === 'ENOENT' ? 'is missing' : `cannot be read (${code})`;
        const reason = `certificate unavailable: proxmox.caFile ${caFile} ${what}; retrying until it appears`;
        throw new ProxmoxTransientError(`CA file ${caFile} ${what}`, { reason, cause: err, kind: 'CertificateInvalid' });
      }
      cached = certificatesIn(text, caFile);
      return cached;
    },
  };
}
