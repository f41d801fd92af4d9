// The `cluster-list` format of proxmox.clusters (SPEC 32): a JSON list (an
// environment variable's text is parsed first), each entry an object
// naming its cluster and URL, its other keys those of the single-cluster
// form (nodes, images and networks checked by their own formats' rules).
// The loader fills what an entry leaves out (src/config/clusters.ts).
import type { Format } from 'convict';
import { parseJsonIfString, validateImage, validateNode } from './list-formats.js';
import { networkListProblems } from './network-pools.js';
import { proxmoxUrlProblem } from './url-formats.js';
import { CLUSTER_NAME_RE } from './name-patterns.js';

// The producer library checks cluster names too, so the pattern lives where convict is not.
export { CLUSTER_NAME_RE };
export const CLUSTER_KEYS = ['name', 'url', 'tokenFile', 'caFile', 'nodes', 'images', 'defaultImage', 'networks', 'maxRequestsPerSecond', 'daemonSlotsPerNode'] as const;
const CLUSTER_FORM = `{${CLUSTER_KEYS.map((key) => (key === 'name' || key === 'url' ? key : `${key}?`)).join(', ')}}`;

function isNat(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/** Runs a list format's checks on one field, naming the entry and the field in what it throws. */
function checked(at: string, field: string, check: () => void): void {
  try {
    check();
  } catch (err) {
    throw new Error(`${at}: ${field} ${(err as Error).message}`, { cause: err });
  }
}

function validateCluster(value: unknown, index: number): string {
  const at = `entry ${index}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${at} must be an object ${CLUSTER_FORM}`);
  const entry = value as Record<string, unknown>;
  const extra = Object.keys(entry).find((key) => !(CLUSTER_KEYS as readonly string[]).includes(key));
  if (extra !== undefined) throw new Error(`${at} has unknown key "${extra}"; allowed: ${CLUSTER_KEYS.join(', ')}`);
  if (typeof entry.name !== 'string' || !CLUSTER_NAME_RE.test(entry.name)) throw new Error(`${at}: name must be 1 to 20 of a-z, 0-9, "-", starting with a letter`);
  const named = `${at} (${entry.name})`;
  const urlProblem = entry.url === 'sim' ? undefined : proxmoxUrlProblem(entry.url, 'allowed: https://HOST[:PORT], http:// on a loopback address, or "sim"');
  if (urlProblem !== undefined) throw new Error(`${named}: url ${urlProblem}`);
  for (const key of ['tokenFile', 'caFile', 'defaultImage'] as const) {
    if (entry[key] !== undefined && typeof entry[key] !== 'string') throw new Error(`${named}: ${key} must be a string`);
  }
  if (entry.tokenFile === '') throw new Error(`${named}: tokenFile must name a file`);
  for (const key of ['maxRequestsPerSecond', 'daemonSlotsPerNode'] as const) {
    if (entry[key] !== undefined && !isNat(entry[key])) throw new Error(`${named}: ${key} must be a whole number (0: no limit)`);
  }
  if (entry.nodes !== undefined) {
    if (!Array.isArray(entry.nodes) || entry.nodes.length === 0) throw new Error(`${named}: nodes must be a non-empty JSON list of {name, template, isoStorage, ...}`);
    entry.nodes.forEach((node: unknown, i) => checked(named, 'nodes', () => validateNode(node, i)));
  }
  if (entry.images !== undefined) {
    if (!Array.isArray(entry.images)) throw new Error(`${named}: images must be a JSON list of {name, templates, ...}`);
    entry.images.forEach((image: unknown, i) => checked(named, 'images', () => validateImage(image, i)));
  }
  if (entry.networks !== undefined) {
    const problems = networkListProblems(entry.networks);
    if (problems.length > 0) throw new Error(`${named}: networks ${problems.join('; ')}`);
  }
  return entry.name;
}

export const CLUSTER_LIST_FORMAT: Format = {
  name: 'cluster-list',
  coerce: parseJsonIfString,
  validate(value: unknown) {
    if (!Array.isArray(value)) throw new Error(`must be a JSON list of ${CLUSTER_FORM}; [] is the one-cluster form`);
    const names = value.map(validateCluster);
    const dup = names.find((name, i) => names.indexOf(name) !== i);
    if (dup !== undefined) throw new Error(`names cluster "${dup}" twice; each cluster may appear once`);
  },
};
