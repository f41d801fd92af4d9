// A thousand malformed requests for SPEC 22 "Bad input": each case is one
// request body (or path) with the fields that must be named in the
// refusal. Generated from tables of bad values per field, crossed with
// names that already hold state (so a refused request that still touched
// the registry would show).

export type Verb = 'create' | 'delete' | 'check';

export interface MalformedCase {
  verb: Verb;
  /** What the caller sends (the producer's input; the HTTP body or path). */
  input: unknown;
  /** Fields the refusal must name (at least these). */
  fields: string[];
  label: string;
}

export const MAX_TEXT_BYTES = 64 * 1024;

/** Names that are not DNS labels (SPEC 1). */
export const BAD_NAMES: unknown[] = [
  '',
  '-lead',
  'trail-',
  'UPPER',
  'under_score',
  'dot.ted',
  'sp ace',
  'a'.repeat(64),
  'ünïcode',
  'tab\tname',
  'new\nline',
  'slash/name',
  '-',
  'name!',
  'x'.repeat(200),
  12,
  true,
  null,
  ['list'],
  { nested: 'object' },
];

export const BAD_UIDS: unknown[] = ['', 'a'.repeat(65), 'sp ace', 'semi;colon', 'slash/uid', 'quote"', 'ünï', 7, false, null, { a: 1 }];

const INTEGER_FIELDS: [string, number, number][] = [
  ['cores', 1, 32],
  ['memoryMiB', 16, 131072], // 16: Proxmox's floor (SPEC 24)
  ['diskGiB', 1, 2048],
  ['vlanTag', 1, 4094],
];

function badIntegers(min: number, max: number): unknown[] {
  return [0, -1, min - 1, max + 1, 1.5, '2', null, true, [], {}, 1e300, -0.5, '1e3'];
}

const BAD_BOOLEANS: unknown[] = ['true', 1, 0, null, 'yes', [], {}];

const LONE_SURROGATE = 'abc\uD800def';

const BAD_TEXTS: unknown[] = ['x'.repeat(MAX_TEXT_BYTES + 1), 'é'.repeat(MAX_TEXT_BYTES / 2 + 1), LONE_SURROGATE, 42, true, null, ['a'], { a: 'b' }];

const BAD_NODES: unknown[] = ['pve9', 'PVE1', '', 'pve1 ', 1, null, ['pve1']];

const BAD_BRIDGES: unknown[] = ['1vmbr', 'vmbr0'.repeat(4), 'br 0', 'br/0', '', 5, null];

/** Fields no caller may send: generation is the producer's (SPEC 2). */
// Names Object.prototype carries are unknown fields too, not inherited ones.
const UNKNOWN_FIELDS = ['generation', 'foo', 'vmid', 'state', 'Name', 'cores ', 'constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

/** Names with state in the registry before the run, and fresh ones. */
export function targetNames(existing: string[]): string[] {
  return [...existing, ...Array.from({ length: 6 }, (_, i) => `fresh-${i + 1}`)];
}

function withField(name: string, field: string, value: unknown): Record<string, unknown> {
  // JSON round trip: what the API receives is what the producer receives,
  // and `__proto__` becomes an own key as JSON.parse makes it.
  return JSON.parse(`{"name":${JSON.stringify(name)},${JSON.stringify(field)}:${JSON.stringify(value)}}`) as Record<string, unknown>;
}

/** Every case, at least `atLeast` of them, in a fixed order. */
export function malformedCases(existing: string[], atLeast = 1000): MalformedCase[] {
  const names = targetNames(existing);
  const base: MalformedCase[] = [];
  for (const bad of BAD_NAMES) {
    base.push({ verb: 'create', input: { name: bad }, fields: ['name'], label: `create name ${JSON.stringify(bad)}` });
    base.push({ verb: 'delete', input: { name: bad }, fields: ['name'], label: `delete name ${JSON.stringify(bad)}` });
    base.push({ verb: 'check', input: { name: bad }, fields: ['name'], label: `check name ${JSON.stringify(bad)}` });
  }
  base.push({ verb: 'create', input: { cores: 2 }, fields: ['name'], label: 'create without name' });
  base.push({ verb: 'delete', input: { uid: 'u-1' }, fields: ['name'], label: 'delete without name' });
  for (const notObject of [null, 'vm-1', 42, ['vm-1'], true]) {
    for (const verb of ['create', 'delete', 'check'] as const) {
      base.push({ verb, input: notObject, fields: ['(data)'], label: `${verb} of ${JSON.stringify(notObject)}` });
    }
  }
  for (const name of names) {
    for (const bad of BAD_UIDS) {
      base.push({ verb: 'create', input: withField(name, 'uid', bad), fields: ['uid'], label: `create ${name} uid ${JSON.stringify(bad)}` });
      base.push({ verb: 'delete', input: withField(name, 'uid', bad), fields: ['uid'], label: `delete ${name} uid ${JSON.stringify(bad)}` });
    }
    for (const [field, min, max] of INTEGER_FIELDS) {
      for (const bad of badIntegers(min, max)) {
        base.push({ verb: 'create', input: withField(name, field, bad), fields: [field], label: `create ${name} ${field} ${JSON.stringify(bad)}` });
      }
    }
    for (const bad of BAD_BOOLEANS) {
      base.push({ verb: 'create', input: withField(name, 'waitForAddress', bad), fields: ['waitForAddress'], label: `create ${name} waitForAddress ${JSON.stringify(bad)}` });
    }
    for (const field of ['userData', 'networkConfig']) {
      for (const bad of BAD_TEXTS) {
        base.push({ verb: 'create', input: withField(name, field, bad), fields: [field], label: `create ${name} ${field} ${typeof bad === 'string' ? `string of ${bad.length}` : JSON.stringify(bad)}` });
      }
    }
    for (const bad of BAD_NODES) base.push({ verb: 'create', input: withField(name, 'node', bad), fields: ['node'], label: `create ${name} node ${JSON.stringify(bad)}` });
    for (const bad of BAD_BRIDGES) base.push({ verb: 'create', input: withField(name, 'bridge', bad), fields: ['bridge'], label: `create ${name} bridge ${JSON.stringify(bad)}` });
    for (const field of UNKNOWN_FIELDS) {
      for (const verb of ['create', 'delete', 'check'] as const) {
        base.push({ verb, input: withField(name, field, 1), fields: [field], label: `${verb} ${name} unknown field ${field}` });
      }
    }
    // Several bad fields at once: every one is named (SPEC 1).
    base.push({
      verb: 'create',
      input: { name, cores: 0, memoryMiB: 'lots', vlanTag: 5000, waitForAddress: 'no', userData: 7, extra: true },
      fields: ['cores', 'memoryMiB', 'vlanTag', 'waitForAddress', 'userData', 'extra'],
      label: `create ${name} with six bad fields`,
    });
    base.push({ verb: 'create', input: { name: `${name}_`, uid: '', node: 'nowhere' }, fields: ['name', 'uid', 'node'], label: `create ${name}_ with three bad fields` });
  }
  const cases: MalformedCase[] = [];
  while (cases.length < atLeast) cases.push(...base);
  return cases;
}
