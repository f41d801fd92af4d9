// The official API description (vendor/pve-api/apidata.json), loaded and
// indexed once: which path and method exist (else 501, as pveproxy's
// rest_handler answers) and which parameters each takes (else 400
// `Parameter verification failed.` with the errors map, F1).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { paramError } from './answer-error.js';
import { checkValue, type PropSchema } from './formats.js';
import type { RoutePermissions } from './permissions.js';

type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

interface MethodInfo {
  parameters?: { properties?: Record<string, PropSchema>; additionalProperties?: number };
  permissions?: RoutePermissions;
}

interface ApiNode {
  path: string;
  info?: Partial<Record<HttpMethod, MethodInfo>>;
  children?: ApiNode[];
}

interface TrieNode {
  literal: Map<string, TrieNode>;
  param?: { name: string; node: TrieNode };
  /** The schema path, e.g. `/nodes/{node}/qemu/{vmid}/config`. */
  template?: string;
  methods: Partial<Record<HttpMethod, MethodInfo>>;
}

export interface RouteMatch {
  /** The schema path, e.g. `/nodes/{node}/qemu/{vmid}/config`. */
  template: string;
  /** Decoded values of the `{...}` segments. */
  pathParams: Record<string, string>;
  properties: Record<string, PropSchema>;
  /** The method's `permissions` (permissions.ts checks them). */
  permissions?: RoutePermissions;
}

/** Highest index Proxmox accepts for the `name[n]` keys (qemu-server's MAX_* constants). */
const INDEX_LIMITS: Record<string, number> = {
  net: 31, ide: 3, sata: 5, scsi: 30, virtio: 15, unused: 255, ipconfig: 31, serial: 3,
  usb: 13, hostpci: 15, parallel: 2, numa: 7, virtiofs: 9, mp: 255,
};

function emptyNode(): TrieNode {
  return { literal: new Map(), methods: {} };
}

/** A file of vendor/pve-api/, from the source tree or from dist/. */
export function vendorApiFile(name: string): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, '..', '..', 'vendor'), join(here, '..', '..', '..', 'vendor')].map((dir) => join(dir, 'pve-api', name));
  const found = candidates.find((file) => existsSync(file));
  if (found === undefined) throw new Error(`vendor/pve-api/${name} is missing (looked for ${candidates.join(', ')})`);
  return found;
}

function findSchemaFile(): string {
  return vendorApiFile('apidata.json');
}

export class ApiSchema {
  private readonly root = emptyNode();

  constructor(tree: ApiNode[]) {
    const add = (api: ApiNode): void => {
      let node = this.root;
      for (const segment of api.path.split('/').filter((s) => s !== '')) {
        const param = /^\{(.+)\}$/.exec(segment);
        if (param !== null) {
          node.param ??= { name: param[1] as string, node: emptyNode() };
          node = node.param.node;
        } else {
          let next = node.literal.get(segment);
          if (next === undefined) {
            next = emptyNode();
            node.literal.set(segment, next);
          }
          node = next;
        }
      }
      node.template = api.path;
      node.methods = { ...node.methods, ...api.info };
      for (const child of api.children ?? []) add(child);
    };
    for (const api of tree) add(api);
  }

  static load(file = findSchemaFile()): ApiSchema {
    return new ApiSchema(JSON.parse(readFileSync(file, 'utf8')) as ApiNode[]);
  }

  /** The route for a method and a raw (still %-encoded) path under /api2/json, or undefined (501). */
  match(method: string, rawPath: string): RouteMatch | undefined {
    let node: TrieNode | undefined = this.root;
    const pathParams: Record<string, string> = {};
    for (const raw of rawPath.split('/').filter((s) => s !== '')) {
      const segment = safeDecode(raw);
      const literal: TrieNode | undefined = node.literal.get(segment);
      if (literal !== undefined) node = literal;
      else if (node.param !== undefined) {
        pathParams[node.param.name] = segment;
        node = node.param.node;
      } else return undefined;
    }
    const info = node.methods[method as HttpMethod];
    if (info === undefined || node.template === undefined) return undefined;
    return { template: node.template, pathParams, properties: info.parameters?.properties ?? {}, ...(info.permissions ? { permissions: info.permissions } : {}) };
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function schemaFor(properties: Record<string, PropSchema>, key: string): PropSchema | undefined {
  const exact = properties[key];
  if (exact !== undefined) return exact;
  const indexed = /^([a-z]+)(\d+)$/.exec(key);
  if (indexed === null) return undefined;
  const [, base, index] = indexed as unknown as [string, string, string];
  const limit = INDEX_LIMITS[base];
  if (limit === undefined || Number(index) > limit || String(Number(index)) !== index) return undefined;
  return properties[`${base}[n]`];
}

/** Throws the 400 Proxmox gives when params (path parameters included) do not fit the method's schema. */
export function verifyParameters(properties: Record<string, PropSchema>, params: Record<string, string>): void {
  const errors: Record<string, string> = {};
  for (const [name, schema] of Object.entries(properties)) {
    if (name.endsWith('[n]')) continue;
    if (params[name] === undefined && schema.optional !== 1) errors[name] = 'property is missing and it is not optional';
  }
  for (const [key, value] of Object.entries(params)) {
    const schema = schemaFor(properties, key);
    if (schema === undefined) {
      errors[key] = 'property is not defined in schema and the schema does not allow additional properties';
      continue;
    }
    checkValue(schema, value, key, errors);
    if (schema.requires !== undefined && params[schema.requires] === undefined) {
      errors[schema.requires] ??= `missing property required by '${key}'`;
    }
  }
  if (Object.keys(errors).length > 0) throw paramError(errors);
}
