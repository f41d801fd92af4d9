// The token the simulator accepts, kept where the client reads it
// (proxmox.tokenFile), created on first run with a random secret, mode 0600,
// so the default run needs no set-up (SPEC 7). The value is never printed.
import { randomUUID } from 'node:crypto';
import { createSecretFileIfMissing } from '../secrets/create-missing.js';
import { readSecretFile } from '../secrets/read.js';

/** Reads the token file, creating it with `root@pam!provisioner=<uuid>` when missing. Resolves the token and whether it was created. */
export async function ensureSimToken(path: string): Promise<{ token: string; created: boolean }> {
  const created = await createSecretFileIfMissing(path, () => `root@pam!provisioner=${randomUUID()}\n`);
  const token = await readSecretFile(path);
  return { token, created };
}
