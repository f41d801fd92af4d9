// The lines of http.apiTokensFile (SPEC 34): a token, then optional
// `key=value` words giving its tenant, scope, the tenant's quotas and
// webhook URL. A line with the token alone is the default tenant with the
// admin scope, as every line was before tenants. Pure: text in, tokens and
// their tenants out; an error names the file, the line and the key, never
// the token (nor a word that might be part of one).
import { weakSecretProblem } from '../secrets/strength.js';
import { DEFAULT_TENANT, DEFAULT_TENANT_NAME, QUOTA_NAMES, TENANT_NAME_RE, TENANT_SCOPES, type QuotaName, type Tenant, type TenantQuotas, type TenantScope } from './types.js';

/** One bearer token and the tenant (with this token's scope) it speaks for. */
export interface ApiToken {
  token: string;
  tenant: Tenant;
}

export class TokenLinesError extends Error {
  override readonly name = 'TokenLinesError';
}

const KEYS = ['tenant', 'scope', ...QUOTA_NAMES, 'webhookUrl'] as const;
type Key = (typeof KEYS)[number];

function isKey(word: string): word is Key {
  return (KEYS as readonly string[]).includes(word);
}

function isQuotaName(key: Key): key is QuotaName {
  return (QUOTA_NAMES as readonly string[]).includes(key);
}

/** What one line says of its tenant beyond the name and scope: the quotas and webhook URL, when it gives any. */
interface TenantSettings {
  quotas: TenantQuotas;
  webhookUrl?: string;
}

interface ParsedLine {
  number: number;
  token: string;
  name: string;
  scope: TenantScope;
  /** undefined: the line gives neither quotas nor webhookUrl, and takes its tenant's. */
  settings: TenantSettings | undefined;
}


function webhookUrlProblem(value: string): string | undefined {
  if (!URL.canParse(value)) return 'must be an https:// or http:// URL';
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https:// or http:// URL';
  // The URL is published in Redis for the workers: no secret goes with it.
  if (url.username !== '' || url.password !== '') return 'must carry no user or password (the tenant\'s key signs each body)';
  return undefined;
}

function valueProblem(key: Key, value: string): string | undefined {
  if (isQuotaName(key)) return /^[1-9][0-9]{0,14}$/.test(value) ? undefined : 'must be a positive integer';
  if (key === 'tenant') return TENANT_NAME_RE.test(value) ? undefined : 'must be 1 to 32 of a-z, 0-9 and -, starting with a letter';
  if (key === 'scope') return (TENANT_SCOPES as readonly string[]).includes(value) ? undefined : `must be one of ${TENANT_SCOPES.join(', ')}`;
  return webhookUrlProblem(value);
}

function parseLine(line: string, number: number, where: (n: number) => string): ParsedLine {
  const [token = '', ...all] = line.split(/[ \t]+/);
  // A word starting with # ends the line's words: `<token>  # the CI's` (a comment after the token) as before tenants.
  const comment = all.findIndex((word) => word.startsWith('#'));
  const words = comment < 0 ? all : all.slice(0, comment);
  const firstKey = token.slice(0, token.indexOf('='));
  if (isKey(firstKey)) throw new TokenLinesError(`${where(number)} starts with ${firstKey}=: the token comes first, then the key=value words`);
  const weak = weakSecretProblem(token);
  if (weak !== undefined) throw new TokenLinesError(`${where(number)}: the token ${weak}`);
  const given = new Map<Key, string>();
  words.forEach((word, index) => {
    const eq = word.indexOf('=');
    const key = eq > 0 ? word.slice(0, eq) : '';
    if (!isKey(key)) {
      // Never the word itself: a second token pasted after the first would be echoed.
      throw new TokenLinesError(`${where(number)} has word ${index + 2}, which is no known key=value; the keys are ${KEYS.join(', ')}`);
    }
    if (given.has(key)) throw new TokenLinesError(`${where(number)} gives ${key} twice`);
    const value = word.slice(eq + 1);
    const problem = valueProblem(key, value);
    if (problem !== undefined) throw new TokenLinesError(`${where(number)}: ${key} ${problem}`);
    given.set(key, value);
  });
  const tenant = given.get('tenant');
  const scope = TENANT_SCOPES.find((s) => s === given.get('scope')) ?? (tenant === undefined ? DEFAULT_TENANT.scope : 'write');
  const quotas: TenantQuotas = {};
  for (const quota of QUOTA_NAMES) {
    const value = given.get(quota);
    if (value !== undefined) quotas[quota] = Number(value);
  }
  const webhookUrl = given.get('webhookUrl');
  const givesSettings = Object.keys(quotas).length > 0 || webhookUrl !== undefined;
  // The default tenant is the operator's, as every token was before tenants: admin, no quotas, webhooks.url.
  if ((tenant === undefined || tenant === DEFAULT_TENANT_NAME) && (scope !== 'admin' || givesSettings)) {
    throw new TokenLinesError(`${where(number)} gives the ${DEFAULT_TENANT_NAME} tenant ${scope !== 'admin' ? `the ${scope} scope` : 'quotas or a webhookUrl'}: it is the operator's (admin, no quotas); name a tenant with tenant=<name>`);
  }
  return {
    number,
    token,
    name: tenant ?? DEFAULT_TENANT_NAME,
    scope,
    settings: givesSettings ? { quotas, ...(webhookUrl === undefined ? {} : { webhookUrl }) } : undefined,
  };
}

function sameSettings(a: TenantSettings, b: TenantSettings): boolean {
  return a.webhookUrl === b.webhookUrl && QUOTA_NAMES.every((quota) => a.quotas[quota] === b.quotas[quota]);
}

/** Each tenant's quotas and webhook URL: the same on every line that gives any (a conflict names both lines). */
function settingsByTenant(lines: readonly ParsedLine[], where: (n: number) => string): Map<string, { settings: TenantSettings; line: number }> {
  const byTenant = new Map<string, { settings: TenantSettings; line: number }>();
  for (const line of lines) {
    if (line.settings === undefined) continue;
    const first = byTenant.get(line.name);
    if (first === undefined) byTenant.set(line.name, { settings: line.settings, line: line.number });
    else if (!sameSettings(first.settings, line.settings)) {
      throw new TokenLinesError(`${where(line.number)} gives tenant ${line.name} other quotas or webhookUrl than line ${first.line}; a tenant's lines that give any must give the same`);
    }
  }
  return byTenant;
}

/** The same token twice is one token: refused when its lines give it other tenants or scopes. */
function refuseAmbiguousTokens(lines: readonly ParsedLine[], where: (n: number) => string): void {
  const seen = new Map<string, ParsedLine>();
  for (const line of lines) {
    const first = seen.get(line.token);
    if (first === undefined) seen.set(line.token, line);
    else if (first.name !== line.name || first.scope !== line.scope) {
      throw new TokenLinesError(`${where(line.number)} repeats the token of line ${first.number} with another tenant or scope`);
    }
  }
}

/**
 * The tokens of an http.apiTokensFile's text, each with its tenant; `#`
 * comments and blank lines skipped. Throws a TokenLinesError naming `path`
 * and the line for anything wrong, and when there is no token at all.
 */
export function parseTokenLines(text: string, path: string): ApiToken[] {
  const where = (n: number): string => `http.apiTokensFile ${path} line ${n}`;
  const lines = text
    .split('\n')
    .map((raw, index) => ({ line: raw.trim(), number: index + 1 }))
    .filter(({ line }) => line !== '' && !line.startsWith('#'))
    .map(({ line, number }) => parseLine(line, number, where));
  if (lines.length === 0) throw new TokenLinesError(`http.apiTokensFile ${path} holds no token; put one bearer token per line`);
  refuseAmbiguousTokens(lines, where);
  const settings = settingsByTenant(lines, where);
  return lines.map(({ token, name, scope }) => {
    const own = settings.get(name)?.settings;
    const tenant: Tenant = { name, scope, quotas: { ...own?.quotas } };
    if (own?.webhookUrl !== undefined) tenant.webhookUrl = own.webhookUrl;
    return { token, tenant };
  });
}

/** The tenants the tokens name, once each (the first line's scope), in file order. */
export function configuredTenants(tokens: readonly ApiToken[]): Tenant[] {
  const byName = new Map<string, Tenant>();
  for (const { tenant } of tokens) if (!byName.has(tenant.name)) byName.set(tenant.name, tenant);
  return [...byName.values()];
}
