// verify's first group (SPEC 33): the API answers `GET /version`, with a
// version this service supports, over TLS verified with proxmox.caFile.
// When it fails, every other group is skipped (run-checks.ts).
import { isApiError } from '../../proxmox/api-error.js';
import { TransportError } from '../../proxmox/classify.js';
import { SecretFileError } from '../../secrets/read.js';
import { errorText, fail, ok, type VerifyContext } from '../context.js';
import type { CheckResult } from '../types.js';

const GROUP = 'api';

/**
 * The oldest Proxmox VE verify accepts: the facts (F1-F23) were measured
 * on 9.2, and the privilege list names VM.GuestAgent.Audit for the
 * agent's addresses, which 9.0 brought (pve-access-control 922f710;
 * before it the agent's reads needed VM.Monitor): on 8.x that check
 * could never pass nor its `pveum role add` run (docs/decisions.md).
 */
export const MIN_VERSION: [number, number] = [9, 0];

/** The errors a classified error wraps, outermost first. */
function causes(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let at: unknown = err; at !== undefined && at !== null && chain.length < 8; at = (at as { cause?: unknown }).cause) chain.push(at);
  return chain;
}

/** Why the API did not answer, and the one thing to do about it. */
export function apiFailure(ctx: Pick<VerifyContext, 'config' | 'proxmoxUrl'>, err: unknown): { detail: string; fix: string } {
  const { tokenFile, caFile } = ctx.config.proxmox;
  const chain = causes(err);
  const answer = chain.find(isApiError);
  if (answer?.status === 401) return { detail: `${ctx.proxmoxUrl} refused the token (401 ${answer.reason})`, fix: `put a valid token (user@realm!id=secret) in ${tokenFile}, the file proxmox.tokenFile names` };
  if (answer !== undefined) return { detail: `GET /version answered ${answer.status} ${answer.reason}`, fix: `check that proxmox.url (${ctx.proxmoxUrl}) is a Proxmox VE API` };
  const secret = chain.find((e): e is SecretFileError => e instanceof SecretFileError);
  if (secret !== undefined || /tokenFile|token file/.test(errorText(err))) return { detail: errorText(err), fix: `write the API token (user@realm!id=secret) to ${tokenFile}, or set proxmox.tokenFile to the file that holds it` };
  const code = chain.find((e): e is TransportError => e instanceof TransportError)?.code ?? '';
  if (/CERT|SELF_SIGNED|UNABLE_TO|ERR_TLS|HOSTNAME|INVALID_CA|INVALID_PURPOSE|PATH_LENGTH/.test(code)) {
    const fix = caFile === '' ? `set proxmox.caFile to the PEM file of the CA that signed ${ctx.proxmoxUrl}'s certificate (/etc/pve/pve-root-ca.pem on the host)` : `check proxmox.caFile (${caFile}): it must hold the CA that signed ${ctx.proxmoxUrl}'s certificate, and proxmox.url must name the host in it`;
    return { detail: `TLS verification failed (${code})`, fix };
  }
  if (code === 'ECONNREFUSED') return { detail: `connection refused at ${ctx.proxmoxUrl}`, fix: `check proxmox.url (${ctx.proxmoxUrl}): nothing listens there (pveproxy runs on port 8006)` };
  return { detail: errorText(err), fix: `check proxmox.url (${ctx.proxmoxUrl}) and that this machine reaches it` };
}

function versionBelow(version: string, min: [number, number]): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major < min[0] || (major === min[0] && minor < min[1]);
}

export async function checkApi(ctx: VerifyContext): Promise<CheckResult[]> {
  const tls = ctx.proxmoxUrl.startsWith('https:') ? (ctx.config.proxmox.caFile === '' ? ', TLS verified with the system\'s CAs' : `, TLS verified with ${ctx.config.proxmox.caFile}`) : '';
  let version;
  try {
    version = await ctx.api.version();
  } catch (err) {
    const { detail, fix } = apiFailure(ctx, err);
    return [fail(GROUP, `API at ${ctx.proxmoxUrl} answers`, detail, fix)];
  }
  ctx.inventory.version = version;
  const answers = ok(GROUP, `API at ${ctx.proxmoxUrl} answers`, `GET /version answered${tls}`);
  const min = `${MIN_VERSION[0]}.${MIN_VERSION[1]}`;
  if (versionBelow(version.version, MIN_VERSION)) {
    return [answers, fail(GROUP, `Proxmox VE ${min} or later`, `Proxmox VE ${version.version}`, `upgrade the cluster to Proxmox VE ${min} or later (pve-provisioner is tested against 9.2)`)];
  }
  return [answers, ok(GROUP, `Proxmox VE ${min} or later`, `Proxmox VE ${version.version}`)];
}
