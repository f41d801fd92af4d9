// The value checks of Proxmox's JSONSchema (pve-common PVE::JSONSchema),
// with its texts: check_prop's order (type, format, pattern, lengths,
// bounds, enum), the named formats the client's calls meet, and property
// strings (`virtio=MAC,bridge=vmbr0,tag=4`) checked key by key.

export interface PropSchema {
  type?: string;
  format?: string | Record<string, PropSchema>;
  pattern?: string;
  enum?: string[];
  minimum?: number | string;
  maximum?: number | string;
  minLength?: number;
  maxLength?: number;
  optional?: number;
  alias?: string;
  keyAlias?: string;
  default_key?: number;
  requires?: string;
}

const NAME_RE = '[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?';
const TAG_RE = /^[a-z0-9_][a-z0-9_+.-]*$/i;
const CONFIGID_RE = /^[a-z][a-z0-9_-]+$/i;

function eachListItem(value: string, check: (item: string) => string | undefined): string | undefined {
  for (const item of value.split(/[,;\s]+/).filter((part) => part !== '')) {
    const problem = check(item);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

const STORAGE_CONTENT = ['images', 'rootdir', 'vztmpl', 'iso', 'backup', 'snippets', 'import', 'none'];

/** Named formats: the `die` text of each verifier, undefined when the value passes. Unlisted formats pass. */
const NAMED_FORMATS: Record<string, (value: string) => string | undefined> = {
  'pve-node': (v) => (new RegExp(`^${NAME_RE}$`).test(v) ? undefined : 'value does not look like a valid node name'),
  'dns-name': (v) => (new RegExp(`^(${NAME_RE}\\.)*${NAME_RE}$`).test(v) ? undefined : 'value does not look like a valid DNS name'),
  'pve-storage-id': (v) => (/^[a-z][a-z0-9._-]*[a-z0-9]$/i.test(v) ? undefined : `storage ID '${v}' contains illegal characters`),
  'pve-configid': (v) => (CONFIGID_RE.test(v) ? undefined : `invalid configuration ID '${v}'`),
  'pve-configid-list': (v) => eachListItem(v, (id) => (CONFIGID_RE.test(id) ? undefined : `invalid configuration ID '${id}'`)),
  // F9: `;` or `,` separate tags; a space or `!` inside a tag is refused.
  'pve-tag-list': (v) => {
    for (const tag of v.split(/[;,]/)) {
      if (tag !== '' && !TAG_RE.test(tag)) return 'invalid characters in tag';
    }
    return undefined;
  },
  'mac-addr': (v) =>
    /^[a-f0-9][02468ace](?::[a-f0-9]{2}){5}$/i.test(v) ? undefined : 'value does not look like a valid unicast MAC address',
  'pve-bridge-id': (v) => (/^[-_.\w\d]+$/.test(v) ? undefined : `invalid bridge ID '${v}'`),
  'pve-storage-content': (v) => (STORAGE_CONTENT.includes(v) ? undefined : `invalid content type '${v}'`),
  'pve-storage-content-list': (v) => eachListItem(v, (c) => (STORAGE_CONTENT.includes(c) ? undefined : `invalid content type '${c}'`)),
};

function isInteger(value: string): boolean {
  return /^[+-]?\d+$/.test(value);
}

function isNumber(value: string): boolean {
  return /^[+-]?(\d+\.\d+|\d+\.|\.\d+|\d+)([eE][+-]?\d+)?$/.test(value);
}

/** JSONSchema.pm check_type takes only `1` and `0` for a boolean (audit 12b). */
function parseBoolean(value: string): boolean | undefined {
  if (value === '1') return true;
  if (value === '0') return false;
  return undefined;
}

function typeProblem(type: string | undefined, value: string): string | undefined {
  switch (type ?? '') {
    case 'boolean':
      return parseBoolean(value) === undefined ? `type check ('boolean') failed - got '${value}'` : undefined;
    case 'integer':
      return isInteger(value) ? undefined : `type check ('integer') failed - got '${value}'`;
    case 'number':
      return isNumber(value) ? undefined : `type check ('number') failed - got '${value}'`;
    default:
      return undefined;
  }
}

/** Checks one scalar value as check_prop does; adds at most one message under `path`. */
export function checkValue(schema: PropSchema, value: string, path: string, errors: Record<string, string>): void {
  const add = (text: string): void => {
    errors[path] = errors[path] === undefined ? text : `${errors[path]}\n${text}`;
  };
  const typeError = typeProblem(schema.type, value);
  if (typeError !== undefined) return add(typeError);
  const format = schema.format;
  if (typeof format === 'string') {
    const problem = NAMED_FORMATS[format]?.(value);
    if (problem !== undefined) return add(`invalid format - ${problem}\n`);
  } else if (format !== undefined) {
    const problem = propertyStringProblem(format, value, path);
    if (problem !== undefined) return add(`invalid format - ${problem}`);
  }
  if (schema.pattern !== undefined && !new RegExp(`^(?:${schema.pattern})$`).test(value)) {
    return add('value does not match the regex pattern');
  }
  if (schema.maxLength !== undefined && value.length > schema.maxLength) return add(`value may only be ${schema.maxLength} characters long`);
  if (schema.minLength !== undefined && value.length < schema.minLength) return add(`value must be at least ${schema.minLength} characters long`);
  if (isNumber(value)) {
    if (schema.maximum !== undefined && Number(value) > Number(schema.maximum)) return add(`value must have a maximum value of ${schema.maximum}`);
    if (schema.minimum !== undefined && Number(value) < Number(schema.minimum)) return add(`value must have a minimum value of ${schema.minimum}`);
  }
  if (schema.enum !== undefined && !schema.enum.includes(value)) {
    add(`value '${value}' does not have a value in the enumeration '${schema.enum.join(', ')}'`);
  }
}

/** Splits `key=value,...` as parse_property_string does (default key, aliases). */
function parsePropertyString(format: Record<string, PropSchema>, text: string): Record<string, string> {
  const result: Record<string, string> = {};
  let defaultKey: string | undefined;
  for (const part of text.split(',')) {
    if (/^\s*$/.test(part)) continue;
    const pair = /^([^=]+)=(.+)$/.exec(part);
    if (pair !== null) {
      let key = pair[1] as string;
      const value = pair[2] as string;
      if (result[key] !== undefined) throw new Error(`duplicate key in comma-separated list property: ${key}\n`);
      const schema = format[key];
      if (schema?.alias !== undefined) {
        if (schema.keyAlias !== undefined) result[schema.keyAlias] = key;
        key = schema.alias;
      }
      if (format[key] === undefined) throw new Error(`invalid key in comma-separated list property: ${key}\n`);
      result[key] = value;
    } else if (!part.includes('=')) {
      if (defaultKey !== undefined) throw new Error(`duplicate key in comma-separated list property: ${defaultKey}\n`);
      defaultKey = Object.keys(format).find((k) => format[k]?.default_key === 1);
      if (defaultKey === undefined) throw new Error('value without key, but schema does not define a default key\n');
      result[defaultKey] = part;
    } else {
      throw new Error('missing key in comma-separated list property\n');
    }
  }
  return result;
}

function propertyStringProblem(format: Record<string, PropSchema>, text: string, path: string): string | undefined {
  let parsed: Record<string, string>;
  try {
    parsed = parsePropertyString(format, text);
  } catch (err) {
    return (err as Error).message;
  }
  const errors: Record<string, string> = {};
  for (const [key, schema] of Object.entries(format)) {
    if (schema.alias !== undefined) continue;
    const value = parsed[key];
    const keyPath = `${path}.${key}`;
    if (value === undefined) {
      if (schema.optional !== 1) errors[keyPath] = 'property is missing and it is not optional';
      continue;
    }
    checkValue(schema, value, keyPath, errors);
  }
  const lines = Object.entries(errors).map(([key, message]) => `${key}: ${message.trimEnd()}\n`);
  return lines.length === 0 ? undefined : `format error\n${lines.join('')}`;
}
