// The address pools of proxmox.networks (SPEC 29): each entry checked
// field by field, then the list as a whole (names once, one pool per
// bridge and VLAN tag), and the defaults filled. The config loader
// (network-format.ts) and the producer library (producer.ts) both check
// with these, so a pool the service refuses is refused by the library too.
import { inSubnet, ipv4ToNumber, parseCidr, type Ipv4Subnet } from '../addresses/ipv4.js';
import { BRIDGE_RE, IMAGE_NAME_RE, isInt } from './name-patterns.js';
import type { NetworkPoolConfig } from './types.js';

export const NETWORK_KEYS = ['name', 'bridge', 'vlanTag', 'cidr', 'gateway', 'dns', 'first', 'last', 'exclude', 'reuseCooldownSeconds'] as const;
export const NETWORK_FORM = `{${NETWORK_KEYS.map((key) => (key === 'name' || key === 'bridge' || key === 'cidr' ? key : `${key}?`)).join(', ')}}`;

export const DEFAULT_REUSE_COOLDOWN_SECONDS = 600;
/** Longest cooldown: a year. */
export const MAX_REUSE_COOLDOWN_SECONDS = 365 * 24 * 3600;
/** Most addresses one pool hands out: the allocation searches the range in Redis, in one script. */
export const MAX_POOL_SIZE = 65536;
export const MIN_PREFIX_LENGTH = 8;
export const MAX_PREFIX_LENGTH = 30;

/** The pool's range as numbers, from a complete and valid entry. */
export interface PoolRange {
  subnet: Ipv4Subnet;
  first: number;
  last: number;
}

export function poolRange(pool: Pick<NetworkPoolConfig, 'cidr' | 'first' | 'last'>): PoolRange | undefined {
  const subnet = parseCidr(pool.cidr);
  if (subnet === undefined) return undefined;
  const first = pool.first === undefined ? subnet.network + 1 : ipv4ToNumber(pool.first);
  const last = pool.last === undefined ? subnet.broadcast - 1 : ipv4ToNumber(pool.last);
  return first === undefined || last === undefined ? undefined : { subnet, first, last };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type Defaulted = 'dns' | 'exclude' | 'reuseCooldownSeconds';
/** An entry as given: the defaulted keys may be absent. */
export type NetworkPoolInput = Omit<NetworkPoolConfig, Defaulted> & Partial<Pick<NetworkPoolConfig, Defaulted>>;

/** A checked entry with its defaults: dns and exclude empty, reuseCooldownSeconds 600. */
export function withNetworkDefaults(pool: NetworkPoolInput): NetworkPoolConfig {
  return { ...pool, dns: pool.dns ?? [], exclude: pool.exclude ?? [], reuseCooldownSeconds: pool.reuseCooldownSeconds ?? DEFAULT_REUSE_COOLDOWN_SECONDS };
}

function quadProblem(value: unknown, what: string, subnet: Ipv4Subnet | undefined): string | undefined {
  const number = typeof value === 'string' ? ipv4ToNumber(value) : undefined;
  if (number === undefined) return `${what} must be an IPv4 address in dotted-quad form such as "10.0.0.1", got ${JSON.stringify(value)}`;
  if (subnet !== undefined && !inSubnet(subnet, number)) return `${what} ${String(value)} is not inside the cidr`;
  return undefined;
}

function listProblems(value: unknown, what: string, subnet: Ipv4Subnet | undefined): string[] {
  if (!Array.isArray(value)) return [`${what} must be a list of IPv4 addresses such as ["10.0.0.1"]`];
  return value.flatMap((item: unknown, i) => quadProblem(item, `${what}[${i}]`, subnet) ?? []);
}

function cidrProblem(value: unknown): string | undefined {
  const subnet = typeof value === 'string' ? parseCidr(value) : undefined;
  if (subnet === undefined) return `cidr must be an IPv4 subnet such as "10.0.0.0/24", got ${JSON.stringify(value)}`;
  if (subnet.prefixLength < MIN_PREFIX_LENGTH || subnet.prefixLength > MAX_PREFIX_LENGTH) {
    return `cidr ${String(value)} has prefix length ${subnet.prefixLength}; it must be from ${MIN_PREFIX_LENGTH} to ${MAX_PREFIX_LENGTH}`;
  }
  return undefined;
}

/** The range of an entry whose fields are each valid. */
function rangeProblems(entry: NetworkPoolInput): string[] {
  const range = poolRange(entry);
  if (range === undefined) return [];
  if (range.first > range.last) return [`first (${entry.first ?? 'the first host'}) is after last (${entry.last ?? 'the last host'})`];
  const size = range.last - range.first + 1;
  if (size > MAX_POOL_SIZE) return [`the range from first to last holds ${size} addresses, more than ${MAX_POOL_SIZE}: give first and last to narrow it`];
  return [];
}

/** What is wrong with one entry, each problem naming its field; empty when nothing is. */
export function networkEntryProblems(value: unknown): string[] {
  if (!isObject(value)) return [`must be an object ${NETWORK_FORM}`];
  const extra = Object.keys(value).find((key) => !(NETWORK_KEYS as readonly string[]).includes(key));
  if (extra !== undefined) return [`has unknown key "${extra}"; allowed: ${NETWORK_KEYS.join(', ')}`];
  const problems: string[] = [];
  if (typeof value.name !== 'string' || !IMAGE_NAME_RE.test(value.name)) problems.push('name must be 1 to 63 of a-z, 0-9, ".", "_", "-", starting with a letter or digit');
  if (typeof value.bridge !== 'string' || !BRIDGE_RE.test(value.bridge)) problems.push('bridge is required and must be a bridge name such as "vmbr0"');
  if (value.vlanTag !== undefined && (!isInt(value.vlanTag) || value.vlanTag < 1 || value.vlanTag > 4094)) problems.push('vlanTag must be an integer from 1 to 4094');
  const cidr = cidrProblem(value.cidr);
  if (cidr !== undefined) problems.push(cidr);
  const subnet = cidr === undefined ? parseCidr(value.cidr as string) : undefined;
  for (const field of ['gateway', 'first', 'last'] as const) {
    const problem = value[field] === undefined ? undefined : quadProblem(value[field], field, subnet);
    if (problem !== undefined) problems.push(problem);
  }
  problems.push(...listProblems(value.dns ?? [], 'dns', undefined), ...listProblems(value.exclude ?? [], 'exclude', subnet));
  const cooldown = value.reuseCooldownSeconds;
  if (cooldown !== undefined && (!isInt(cooldown) || cooldown < 0 || cooldown > MAX_REUSE_COOLDOWN_SECONDS)) {
    problems.push(`reuseCooldownSeconds must be a whole number of seconds from 0 to ${MAX_REUSE_COOLDOWN_SECONDS}`);
  }
  if (problems.length === 0) problems.push(...rangeProblems(value as unknown as NetworkPoolInput));
  return problems;
}

function networkKey(pool: NetworkPoolInput): string {
  return `${pool.bridge} ${pool.vlanTag === undefined ? 'untagged' : `VLAN ${pool.vlanTag}`}`;
}

/** What is wrong with the list, each problem naming its entry (`entry 0 (lan)`); empty when nothing is. */
export function networkListProblems(value: unknown): string[] {
  if (!Array.isArray(value)) return [`must be a JSON list of ${NETWORK_FORM}`];
  const problems = value.flatMap((entry: unknown, i) => {
    const name = isObject(entry) && typeof entry.name === 'string' ? ` (${entry.name})` : '';
    return networkEntryProblems(entry).map((problem) => `entry ${i}${name}: ${problem}`);
  });
  if (problems.length > 0) return problems;
  const pools = value as NetworkPoolInput[];
  pools.forEach((pool, i) => {
    const twin = pools.findIndex((other) => other.name === pool.name);
    if (twin < i) problems.push(`entries ${twin} and ${i} are both named "${pool.name}"; each pool needs a name of its own`);
    const sameNetwork = pools.findIndex((other) => networkKey(other) === networkKey(pool));
    if (sameNetwork < i) problems.push(`entries ${sameNetwork} (${pools[sameNetwork]?.name ?? ''}) and ${i} (${pool.name}) are both for bridge ${networkKey(pool)}; a network has at most one pool`);
  });
  return problems;
}
