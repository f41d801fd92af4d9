// The API token file read and checked (SPEC 18); token-cache.ts keeps
// the value between requests. A missing or empty file may yet appear, so
// it is Transient (SPEC 17); health reports it as CredentialsUnavailable.
import { SecretFileError, readSecretFile } from '../secrets/read.js';
import { ProxmoxTransientError } from './failure.js';

/** `user@realm!tokenid=secret`: one line, no spaces. */
const TOKEN_SHAPE = /^[^\s=]+=[^\s]+$/;

export async function readToken(tokenFile: string): Promise<string> {
  let token: string;
  try {
    token = await readSecretFile(tokenFile);
  } catch (err) {
    if (!(err instanceof SecretFileError)) throw err;
    const reason = `credentials unavailable: cannot read the API token file ${tokenFile} (${err.code}); check proxmox.tokenFile`;
    throw new ProxmoxTransientError(err.message, { reason, cause: err, kind: 'CredentialsUnavailable' });
  }
  if (!TOKEN_SHAPE.test(token)) {
    const reason = `credentials unavailable: ${tokenFile} does not hold one token of the form user@realm!id=secret`;
    throw new ProxmoxTransientError(`malformed API token file ${tokenFile}`, { reason, kind: 'CredentialsUnavailable' });
  }
  return token;
}

export function authorizationHeader(token: string): string {
  return `PVEAPIToken=${token}`;
}
