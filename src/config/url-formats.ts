// The URL formats: where the service reaches Proxmox, Redis and the
// webhook receiver, and the public URL of its API. Each refusal ends in
// what is allowed; convict prefixes the key and the value.
import type { Format } from 'convict';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function isLoopback(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || hostname.startsWith('127.');
}

/** A text without its surrounding blanks; anything else as it is. */
const trimText = (value: unknown): unknown => (typeof value === 'string' ? value.trim() : value);

/** The value as a URL, or the error convict shows, ending in what is allowed. */
function urlOf(value: unknown, allowed: string): URL {
  if (typeof value !== 'string') throw new Error(`must be a string; ${allowed}`);
  try {
    return new URL(value);
  } catch {
    throw new Error(`is not a URL; ${allowed}`);
  }
}

/** A parsable URL with a user or password in it. */
export function hasCredentials(value: unknown): boolean {
  if (typeof value !== 'string' || !URL.canParse(value)) return false;
  const url = new URL(value);
  return url.username !== '' || url.password !== '';
}

/**
 * proxmox.url names the simulator (SPEC 8, 29): "sim", or plain http://,
 * which only the simulator speaks (a real pveproxy serves HTTPS alone, and
 * the format takes http:// on loopback only). A simulator reached over
 * HTTPS by its address (sim.tlsCert) is not told apart from a real host.
 */
export function isSimulatorUrl(url: string): boolean {
  return url === 'sim' || url.startsWith('http://');
}

/** What is wrong with a Proxmox API URL (https://, or http:// on loopback only), ending in what is allowed; undefined when it is fine. */
export function proxmoxUrlProblem(value: unknown, allowed: string): string | undefined {
  let url: URL;
  try {
    url = urlOf(value, allowed);
  } catch (err) {
    return (err as Error).message;
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return undefined;
  if (url.protocol === 'http:') return `plain http:// is only allowed for loopback addresses; ${allowed}`;
  return `has scheme ${url.protocol}; ${allowed}`;
}

/** The value as an https:// or http:// URL, or the error convict shows. */
function httpUrlOf(value: unknown, allowed: string): URL {
  const url = urlOf(value, allowed);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`has scheme ${url.protocol}; ${allowed}`);
  return url;
}

export const URL_FORMATS: readonly Format[] = [
  {
    name: 'proxmox-url',
    coerce: trimText,
    validate(value: unknown) {
      const allowed = 'allowed: "sim", https://HOST[:PORT], or http:// on a loopback address';
      if (value === 'sim') return;
      const problem = proxmoxUrlProblem(value, allowed);
      if (problem !== undefined) throw new Error(problem);
    },
  },
  {
    name: 'webhook-url',
    coerce: trimText,
    validate(value: unknown) {
      const allowed = 'allowed: empty (webhooks off), https://HOST[:PORT]/PATH or http://HOST[:PORT]/PATH';
      if (value === '') return;
      httpUrlOf(value, allowed);
    },
  },
  {
    name: 'public-url',
    coerce: trimText,
    validate(value: unknown) {
      const allowed = 'allowed: empty (servers stays the relative /v1), or an absolute https://HOST[:PORT][/PATH] or http://HOST[:PORT][/PATH] with no query, fragment or credentials';
      if (value === '') return;
      const url = httpUrlOf(value, allowed);
      if (url.search !== '' || url.hash !== '') throw new Error(`has a query or fragment; ${allowed}`);
      if (url.username !== '' || url.password !== '') throw new Error(`carries credentials; ${allowed}`);
    },
  },
  {
    name: 'redis-url',
    validate(value: unknown) {
      const allowed = 'allowed: redis://[user:password@]HOST[:PORT][/DB] or rediss://...';
      const url = urlOf(value, allowed);
      if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new Error(`has scheme ${url.protocol}; ${allowed}`);
    },
  },
];
