// `pve-provisioner tenants [--json]` (SPEC 34): what each tenant holds
// against its quotas, through the producer library's listTenantUsage (as
// GET /v1/tenants answers, read from Redis like `pools`); a table, or with
// --json one JSON document `{ "tenants": [...] }`. `--webhook-key TENANT`
// prints that tenant's webhook signing key, derived from webhooks.secretFile,
// for the operator to hand to the tenant. Exit 0, 2 on bad input or an
// unreadable secret file, 1 when Redis is not reachable.
import { parseArgs } from 'node:util';
import { createProvisionerClient } from '../client.js';
import type { TenantUsageView } from '../client.js';
import type { Config } from '../config/index.js';
import { SecretFileError, readSecretFileSync } from '../secrets/read.js';
import { weakSecretProblem } from '../secrets/strength.js';
import { HELD_QUOTAS, TENANT_NAME_RE, type Tenant } from '../tenants/types.js';
import { configuredTenants, parseTokenLines } from '../tenants/token-lines.js';
import { tenantWebhookKey } from '../webhooks/tenant-key.js';
import { cliClientOptions } from './client-options.js';
import { loadConfigOrExplain } from './common.js';
import { answerUsage, describeParseError, wantsHelp } from './help.js';
import { table } from './table.js';
import { jsonDocument } from './terminal-text.js';

const USAGE = [
  'usage: pve-provisioner tenants [--json] | --webhook-key TENANT',
  '  Each tenant that holds VMs (SPEC 34): its VMs, cores, memory and disk held, each as held/quota',
  '  (held alone when it has no such quota), and its creates per minute.',
  '  --json                one JSON document {"tenants": [...]} (as GET /v1/tenants answers) instead of the table.',
  "  --webhook-key TENANT  print the key TENANT's webhooks are signed with (HMAC-SHA256 of the body, X-Signature-256),",
  '                        derived from webhooks.secretFile: hand it to that tenant alone.',
  '',
].join('\n');

const OPTIONS = { json: { type: 'boolean' }, 'webhook-key': { type: 'string' } } as const;

const HEADERS: Readonly<Record<(typeof HELD_QUOTAS)[number], string>> = { vms: 'VMS', cores: 'CORES', memoryMiB: 'MEMORY MIB', diskGiB: 'DISK GIB' };

/** The table of the tenants, one row each: held/quota per quota, and the creates per minute. */
export function tenantsTable(tenants: readonly TenantUsageView[]): string {
  const rows = tenants.map((t) => [
    t.tenant,
    ...HELD_QUOTAS.map((quota) => {
      const limit = t.quotas[quota];
      return limit === undefined ? String(t.usage[quota]) : `${t.usage[quota]}/${limit}`;
    }),
    t.quotas.createsPerMinute === undefined ? '-' : String(t.quotas.createsPerMinute),
  ]);
  return table(['TENANT', ...HELD_QUOTAS.map((quota) => HEADERS[quota]), 'CREATES/MIN'], rows);
}

/** The tenant's key from webhooks.secretFile, or the problem in one line (never the secret). */
/**
 * The tenants of http.apiTokensFile, when this host can read it, so their
 * quotas show and a tenant holding nothing is listed too; else only the
 * tenants holding something (with no quotas). A file that cannot be parsed
 * is said on stderr (the error names the line, never a token).
 */
function knownTenants(config: Pick<Config, 'http'>): Tenant[] {
  let text: string;
  try {
    text = readSecretFileSync(config.http.apiTokensFile);
  } catch {
    return [];
  }
  try {
    return configuredTenants(parseTokenLines(text, config.http.apiTokensFile));
  } catch (err) {
    process.stderr.write(`pve-provisioner tenants: ${err instanceof Error ? err.message : String(err)}; quotas not shown\n`);
    return [];
  }
}

export function webhookKeyOf(config: Pick<Config, 'webhooks'>, tenant: string): { key: string } | { problem: string } {
  if (!TENANT_NAME_RE.test(tenant)) return { problem: `--webhook-key: "${tenant}" is not a tenant name (1 to 32 of a-z, 0-9 and "-", starting with a letter)` };
  let secret: string;
  try {
    secret = readSecretFileSync(config.webhooks.secretFile);
  } catch (err) {
    if (err instanceof SecretFileError) return { problem: `webhooks.secretFile: ${err.message}` };
    throw err;
  }
  const weak = weakSecretProblem(secret);
  if (weak !== undefined) return { problem: `webhooks.secretFile: ${config.webhooks.secretFile} ${weak}` };
  return { key: tenantWebhookKey(secret, tenant) };
}

export async function run(args: string[]): Promise<number> {
  if (wantsHelp(args)) return answerUsage('tenants', USAGE, undefined);
  let values: { json?: boolean; 'webhook-key'?: string };
  try {
    values = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    return answerUsage('tenants', USAGE, describeParseError(err));
  }
  const keyFor = values['webhook-key'];
  if (keyFor !== undefined && values.json === true) return answerUsage('tenants', USAGE, '--webhook-key prints a key, not a table: leave out --json');
  const config = loadConfigOrExplain('tenants');
  if (config === undefined) return 2;
  if (keyFor !== undefined) {
    const found = webhookKeyOf(config, keyFor);
    if ('problem' in found) {
      process.stderr.write(`pve-provisioner tenants: ${found.problem}\n`);
      return 2;
    }
    process.stdout.write(`${found.key}\n`);
    return 0;
  }
  const client = createProvisionerClient(cliClientOptions(config));
  try {
    const tenants = await client.listTenantUsage(knownTenants(config));
    process.stdout.write(values.json ? jsonDocument({ tenants }) : tenants.length === 0 ? 'no tenant holds anything\n' : tenantsTable(tenants));
    return 0;
  } finally {
    await client.close();
  }
}
