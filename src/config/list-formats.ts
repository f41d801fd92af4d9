// The list formats: Redis hosts, proxmox.nodes, proxmox.images and node
// names. A JSON text (an environment variable) is parsed first; each
// entry's refusal names the entry by its place in the list.
import type { Format } from 'convict';
import { parseHostPort } from './host-port.js';
import { isVmid } from './number-formats.js';
import { BRIDGE_RE, IMAGE_NAME_RE, NODE_NAME_RE, isInt } from './name-patterns.js';

export { BRIDGE_RE, IMAGE_NAME_RE };
import type { NodeConfig, Readiness } from './types.js';
import { hasCredentials, proxmoxUrlProblem } from './url-formats.js';

const STORAGE_ID_RE = /^[a-z][a-z0-9_.-]*[a-z0-9]$/;
/** A Linux bridge name: what nodes' and pools' `bridge` carry. */
const NODE_KEYS = new Set(['name', 'template', 'isoStorage', 'storage', 'bridge', 'vlanTag', 'apiUrl']);
const IMAGE_KEYS = new Set(['name', 'description', 'templates', 'readiness', 'readinessPort', 'user']);
/** A cloud-init user name (proxmox.images[].user): what useradd takes, at most 32 characters. */
export const IMAGE_USER_RE = /^[a-z_][a-z0-9_-]{0,31}$/;
/** How a create learns its VM is ready (SPEC 29); `agent` when an image names none. */
export const READINESS_MODES: readonly Readiness[] = ['agent', 'phone-home', 'tcp', 'none'];

/** A JSON text (an environment variable) parsed; anything else, or text that is not JSON, as it is. */
export function parseJsonIfString(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** A JSON list as it is; any other text split at commas (the environment's form). */
function splitList(value: unknown): unknown {
  const parsed = parseJsonIfString(value);
  if (typeof parsed !== 'string') return parsed;
  return parsed
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

function firstDuplicate(names: string[]): string | undefined {
  return names.find((n, i) => names.indexOf(n) !== i);
}

/** A VMID on the node itself, or {vmid, node} for a template on another node (SPEC 23). */
function validateTemplate(template: unknown, at: string): void {
  if (isVmid(template)) return;
  const form = 'a VMID (an integer from 100 to 999999999) or {"vmid": N, "node": "NODE"} for a template on another node';
  if (typeof template !== 'object' || template === null || Array.isArray(template)) throw new Error(`${at}: template must be ${form}`);
  const ref = template as Record<string, unknown>;
  const extra = Object.keys(ref).find((k) => k !== 'vmid' && k !== 'node');
  if (extra !== undefined) throw new Error(`${at}: template has unknown key "${extra}"; it must be ${form}`);
  if (!isVmid(ref.vmid)) throw new Error(`${at}: template.vmid must be a VMID, an integer from 100 to 999999999`);
  if (typeof ref.node !== 'string' || !NODE_NAME_RE.test(ref.node)) throw new Error(`${at}: template.node must be a Proxmox node name (letters, digits, "-")`);
}

export function validateNode(node: unknown, index: number): void {
  const at = `entry ${index}`;
  if (typeof node !== 'object' || node === null || Array.isArray(node)) {
    throw new Error(`${at} must be an object {name, template, isoStorage, storage?, bridge?, vlanTag?, apiUrl?}`);
  }
  const entry = node as Record<string, unknown>;
  for (const key of Object.keys(entry)) {
    if (!NODE_KEYS.has(key)) throw new Error(`${at} has unknown key "${key}"; allowed: ${[...NODE_KEYS].join(', ')}`);
  }
  if (typeof entry.name !== 'string' || !NODE_NAME_RE.test(entry.name)) {
    throw new Error(`${at}: name must be a Proxmox node name (letters, digits, "-")`);
  }
  if (entry.template !== undefined) validateTemplate(entry.template, `${at} (${entry.name})`);
  if (typeof entry.isoStorage !== 'string' || !STORAGE_ID_RE.test(entry.isoStorage)) {
    throw new Error(`${at} (${entry.name}): isoStorage is required and must be a storage id such as "proxy-seeds"`);
  }
  if (entry.storage !== undefined && (typeof entry.storage !== 'string' || !STORAGE_ID_RE.test(entry.storage))) {
    throw new Error(`${at} (${entry.name}): storage must be a storage id such as "local-lvm"`);
  }
  if (entry.bridge !== undefined && (typeof entry.bridge !== 'string' || !BRIDGE_RE.test(entry.bridge))) {
    throw new Error(`${at} (${entry.name}): bridge must be a bridge name such as "vmbr0"`);
  }
  if (entry.vlanTag !== undefined && (!isInt(entry.vlanTag) || entry.vlanTag < 1 || entry.vlanTag > 4094)) {
    throw new Error(`${at} (${entry.name}): vlanTag must be an integer from 1 to 4094`);
  }
  if (entry.apiUrl !== undefined) {
    const allowed = 'allowed: https://HOST[:PORT] of that node, or http:// on a loopback address, with no user or password (the token is proxmox.tokenFile\'s)';
    const problem = proxmoxUrlProblem(entry.apiUrl, allowed) ?? (hasCredentials(entry.apiUrl) ? `carries credentials; ${allowed}` : undefined);
    if (problem !== undefined) throw new Error(`${at} (${entry.name}): apiUrl ${problem}`);
  }
}

export function validateImage(image: unknown, index: number): void {
  const at = `entry ${index}`;
  if (typeof image !== 'object' || image === null || Array.isArray(image)) throw new Error(`${at} must be an object {name, description?, templates, readiness?, readinessPort?, user?}`);
  const entry = image as Record<string, unknown>;
  const extra = Object.keys(entry).find((key) => !IMAGE_KEYS.has(key));
  if (extra !== undefined) throw new Error(`${at} has unknown key "${extra}"; allowed: ${[...IMAGE_KEYS].join(', ')}`);
  if (typeof entry.name !== 'string' || !IMAGE_NAME_RE.test(entry.name)) {
    throw new Error(`${at}: name must be 1 to 63 of a-z, 0-9, ".", "_", "-", starting with a letter or digit`);
  }
  if (entry.description !== undefined && typeof entry.description !== 'string') throw new Error(`${at} (${entry.name}): description must be a string`);
  const templates = entry.templates;
  if (typeof templates !== 'object' || templates === null || Array.isArray(templates) || Object.keys(templates).length === 0) {
    throw new Error(`${at} (${entry.name}): templates must be a non-empty object mapping node names to templates, e.g. {"pve1": 9001}`);
  }
  for (const [node, template] of Object.entries(templates)) validateTemplate(template, `${at} (${entry.name}) templates.${node}`);
  validateReadiness(entry, `${at} (${entry.name})`);
  if (entry.user !== undefined && (typeof entry.user !== 'string' || !IMAGE_USER_RE.test(entry.user))) {
    throw new Error(`${at} (${entry.name}): user must be a user name (1 to 32 of a-z, 0-9, "_", "-", starting with a letter or "_"), got ${JSON.stringify(entry.user)}`);
  }
}

/** SPEC 29: readiness one of the modes; readinessPort a TCP port, and only for `tcp`, the one mode that connects. */
function validateReadiness(entry: Record<string, unknown>, at: string): void {
  const { readiness, readinessPort } = entry;
  if (readiness !== undefined && !READINESS_MODES.includes(readiness as Readiness)) {
    throw new Error(`${at}: readiness must be one of ${READINESS_MODES.map((m) => `"${m}"`).join(', ')} (default "agent"), not ${JSON.stringify(readiness)}`);
  }
  if (readinessPort === undefined) return;
  if (!isInt(readinessPort) || readinessPort < 1 || readinessPort > 65535) throw new Error(`${at}: readinessPort must be an integer from 1 to 65535 (default 22)`);
  if (readiness !== 'tcp') throw new Error(`${at}: readinessPort is the port readiness "tcp" connects to; this image's readiness is "${(readiness as Readiness | undefined) ?? 'agent'}"`);
}

export const LIST_FORMATS: readonly Format[] = [
  {
    name: 'host-port-list',
    coerce: splitList,
    validate(value: unknown) {
      const form = 'a list of host:port, such as ["10.0.0.1:6379","10.0.0.2:6379"] or, in the environment, 10.0.0.1:6379,10.0.0.2:6379';
      if (!Array.isArray(value)) throw new Error(`must be ${form}`);
      value.forEach((entry: unknown, i) => {
        if (typeof entry !== 'string' || parseHostPort(entry) === undefined) throw new Error(`entry ${i + 1} (${JSON.stringify(entry)}) is not host:port with a port from 1 to 65535; must be ${form}`);
      });
    },
  },
  {
    name: 'node-list',
    coerce: parseJsonIfString,
    validate(value: unknown) {
      if (!Array.isArray(value) || value.length === 0) {
        throw new Error('must be a non-empty JSON list of {name, template, isoStorage, storage?, bridge?, vlanTag?, apiUrl?}');
      }
      value.forEach(validateNode);
      const dup = firstDuplicate((value as NodeConfig[]).map((n) => n.name));
      if (dup !== undefined) throw new Error(`names node "${dup}" twice; each node may appear once`);
    },
  },
  {
    name: 'image-list',
    coerce: parseJsonIfString,
    validate(value: unknown) {
      if (!Array.isArray(value)) throw new Error('must be a JSON list of {name, description?, templates}');
      value.forEach(validateImage);
      const dup = firstDuplicate((value as { name: string }[]).map((image) => image.name));
      if (dup !== undefined) throw new Error(`names image "${dup}" twice; each image may appear once`);
    },
  },
  {
    name: 'port-list',
    // `22,2222` from the environment becomes numbers; a JSON list is taken as it is.
    coerce: (value: unknown) => {
      const list = splitList(value);
      return Array.isArray(list) ? (list as unknown[]).map((p) => (typeof p === 'string' && /^\d+$/.test(p) ? Number(p) : p)) : list;
    },
    validate(value: unknown) {
      if (!Array.isArray(value) || !value.every((p) => isInt(p) && p >= 1 && p <= 65535)) throw new Error('must be a JSON list of TCP ports (1 to 65535) such as [22, 2222]');
      const dup = firstDuplicate(value.map(String));
      if (dup !== undefined) throw new Error(`names port ${dup} twice`);
    },
  },
  {
    name: 'name-list',
    coerce: parseJsonIfString,
    validate(value: unknown) {
      if (!Array.isArray(value) || value.length === 0 || !value.every((n) => typeof n === 'string' && NODE_NAME_RE.test(n))) {
        throw new Error('must be a non-empty JSON list of node names such as ["pve1","pve2"]');
      }
    },
  },
];
