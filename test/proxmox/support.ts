// Shared set-up for the client tests: a temporary token file and a
// client pointed at a local server.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProxmoxApi } from '../../src/proxmox/api.js';
import { createHttpApi } from '../../src/proxmox/http-api.js';
import type { HttpApiOptions } from '../../src/proxmox/http-api.js';

export const TOKEN_ID = 'root@pam!provisioner';
export const TOKEN_SECRET = '0b5f2c1e-7d3a-4c9b-8e6f-1a2b3c4d5e6f';
export const TOKEN = `${TOKEN_ID}=${TOKEN_SECRET}`;

export interface Workspace {
  dir: string;
  tokenFile: string;
  writeToken(value: string): void;
  client(baseUrl: string, extra?: Partial<HttpApiOptions>): ProxmoxApi;
  remove(): void;
}

export function workspace(): Workspace {
  const dir = mkdtempSync(join(tmpdir(), 'pve-client-'));
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, `${TOKEN}\n`);
  return {
    dir,
    tokenFile,
    writeToken: (value) => writeFileSync(tokenFile, value),
    client: (baseUrl, extra = {}) => createHttpApi({ baseUrl, tokenFile, ...extra }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

