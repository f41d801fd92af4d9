// SPEC 1, SPEC 24: the field rules of src/job-table/fields.ts one by one, with the
// message a caller reads: each bound accepted at its value and refused one
// past it, text counted in UTF-8 bytes with emoji accepted and lone
// surrogates refused, a configured node accepted and another refused, and
// the JSON Schema the same table documents (issue 19).
import { expect } from 'chai';
import { createInputFields } from '../../src/job-table/create.schema.js';
import { BRIDGE, DNS_LABEL, fieldsJsonSchema, generationField, limitsFromConfig, nameField, requiredField, UID, uidField, validateFields } from '../../src/job-table/fields.js';
import type { FieldError, JobFields, JobLimits } from '../../src/job-table/fields.js';
import type { Config } from '../../src/config/types.js';

const LIMITS: JobLimits = {
  nodes: ['pve1', 'pve2'],
  limits: { maxCores: 8, maxMemoryMiB: 4096, maxDiskGiB: 100 },
  defaults: { cores: 2, memoryMiB: 1024, diskGiB: 10 },
  images: { default: ['pve1', 'pve2'] },
  defaultImage: 'default',
  leases: { defaultSeconds: 0, maxSeconds: 604800, onExpiry: 'delete' },
};

const TABLE = {
  name: { presence: 'required', rule: { kind: 'string', description: 'a name', pattern: /^[a-z]+$/, patternText: 'lowercase letters' } },
  code: { presence: 'optional', rule: { kind: 'string', description: 'a code', pattern: /^[0-9]+$/ } },
  node: { presence: 'optional', rule: { kind: 'string', description: 'a node', oneOf: (l: JobLimits) => l.nodes } },
  text: { presence: 'optional', rule: { kind: 'string', description: 'a text', maxBytes: 8 } },
  cores: { presence: 'defaulted', default: (l: JobLimits) => l.defaults.cores, rule: { kind: 'integer', description: 'cores', min: 1, max: (l: JobLimits) => l.limits.maxCores } },
  count: { presence: 'optional', rule: { kind: 'integer', description: 'a count', min: 3, max: 5 } },
  wait: { presence: 'defaulted', default: () => true, rule: { kind: 'boolean', description: 'wait' } },
} satisfies JobFields;

function errorsOf(data: unknown, fields: JobFields = TABLE, limits: JobLimits = LIMITS): FieldError[] {
  const result = validateFields(fields, data, limits);
  return result.ok ? [] : result.errors;
}

function valueOf(data: unknown): Record<string, unknown> {
  const result = validateFields<Record<string, unknown>>(TABLE, data, LIMITS);
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result.errors)}`);
  return result.value;
}

const EMOJI = '\u{1F600}'; // 4 bytes of UTF-8, a surrogate pair in UTF-16

describe('field rules (SPEC 1, SPEC 24)', () => {
  it('refuses data that is not a JSON object, as one error', () => {
    for (const data of [null, [], 'name', 7, undefined, true]) {
      expect(errorsOf(data), JSON.stringify(data)).to.deep.equal([{ field: '(data)', message: 'must be a JSON object' }]);
    }
  });

  it('fills defaults, leaves absent optional fields out, and keeps the given values', () => {
    expect(valueOf({ name: 'abc' })).to.deep.equal({ name: 'abc', cores: 2, wait: true });
    expect(valueOf({ name: 'abc', cores: 8, wait: false, count: 3, node: 'pve2', text: 'x', code: '12' })).to.deep.equal({
      name: 'abc',
      cores: 8,
      wait: false,
      count: 3,
      node: 'pve2',
      text: 'x',
      code: '12',
    });
  });

  it('names every failing field at once, in the table order after unknown ones', () => {
    expect(errorsOf({ toString: 'x', extra: 1, cores: 0, wait: 'yes' })).to.deep.equal([
      { field: 'toString', message: 'is not a known field' },
      { field: 'extra', message: 'is not a known field' },
      { field: 'name', message: 'is required' },
      { field: 'cores', message: 'must be from 1 to 8, got 0' },
      { field: 'wait', message: 'must be true or false' },
    ]);
  });

  it('an integer is accepted at its min and at its max (a function of config), refused one past each', () => {
    expect(errorsOf({ name: 'a', cores: 1, count: 3 })).to.deep.equal([]);
    expect(errorsOf({ name: 'a', cores: 8, count: 5 })).to.deep.equal([]);
    expect(errorsOf({ name: 'a', cores: 9, count: 6 })).to.deep.equal([
      { field: 'cores', message: 'must be from 1 to 8, got 9' },
      { field: 'count', message: 'must be from 3 to 5, got 6' },
    ]);
    expect(errorsOf({ name: 'a', count: 2 })).to.deep.equal([{ field: 'count', message: 'must be from 3 to 5, got 2' }]);
  });

  it('an integer must be a whole number, not a numeric string', () => {
    for (const count of [3.5, '4', NaN, Infinity]) {
      expect(errorsOf({ name: 'a', count }), String(count)).to.deep.equal([{ field: 'count', message: 'must be an integer from 3 to 5' }]);
    }
  });

  it('a default from config is checked like a given value and says it is the default', () => {
    const low = { ...LIMITS, defaults: { ...LIMITS.defaults, cores: 9 } };
    expect(errorsOf({ name: 'a' }, TABLE, low)).to.deep.equal([{ field: 'cores', message: 'must be from 1 to 8, got 9 (the default from config)' }]);
  });

  it('a string must be a string; its pattern is said in words, else as the pattern', () => {
    expect(errorsOf({ name: 5 })).to.deep.equal([{ field: 'name', message: 'must be a string' }]);
    expect(errorsOf({ name: 'ABC' })).to.deep.equal([{ field: 'name', message: 'must be lowercase letters' }]);
    expect(errorsOf({ name: 'a', code: 'x1' })).to.deep.equal([{ field: 'code', message: 'must be matching ^[0-9]+$' }]);
  });

  it('text is counted in UTF-8 bytes: exactly the bound is accepted, one byte more refused', () => {
    expect(errorsOf({ name: 'a', text: '12345678' })).to.deep.equal([]);
    expect(errorsOf({ name: 'a', text: `1234${EMOJI}` })).to.deep.equal([]);
    expect(errorsOf({ name: 'a', text: '123456789' })).to.deep.equal([{ field: 'text', message: 'must be at most 8 bytes (UTF-8), got 9' }]);
    expect(errorsOf({ name: 'a', text: `12345${EMOJI}` })).to.deep.equal([{ field: 'text', message: 'must be at most 8 bytes (UTF-8), got 9' }]);
  });

  it('an emoji (a surrogate pair) is valid text; a lone surrogate, high or low, anywhere, is not', () => {
    for (const text of [EMOJI, `${EMOJI}${EMOJI}`, `a${EMOJI}b`]) expect(errorsOf({ name: 'a', text }), text).to.deep.equal([]);
    for (const text of ['\uD800', '\uDBFF', '\uDC00', '\uDFFF', 'a\uD83Db', 'a\uDE00', '\uDE00\uD83D', `${EMOJI}\uDE00`, `\uD83D${EMOJI}`]) {
      expect(errorsOf({ name: 'a', text }), JSON.stringify(text)).to.deep.equal([{ field: 'text', message: 'must be valid UTF-8 text' }]);
    }
  });

  it('a configured node is accepted; any other is refused, listing the configured ones', () => {
    for (const node of ['pve1', 'pve2']) expect(errorsOf({ name: 'a', node }), node).to.deep.equal([]);
    expect(errorsOf({ name: 'a', node: 'pve3' })).to.deep.equal([{ field: 'node', message: 'must be one of the configured values: pve1, pve2' }]);
  });

  it("the create table takes an explicit configured node, an emoji in userData and cores equal to maxCores", () => {
    const limits = { ...LIMITS, limits: { ...LIMITS.limits, maxCores: 4 } };
    const result = validateFields(createInputFields, { name: 'web-1', node: 'pve2', userData: `#cloud-config\n# ${EMOJI}\n`, cores: 4 }, limits);
    expect(result).to.deep.include({ ok: true });
    expect(errorsOf({ name: 'web-1', node: 'elsewhere', cores: 5 }, createInputFields, limits).map((e) => e.field)).to.deep.equal(['node', 'cores']);
  });

  it('documents the same rules as JSON Schema', () => {
    expect(fieldsJsonSchema(TABLE, LIMITS)).to.deep.equal({
      type: 'object',
      additionalProperties: false,
      properties: {
        name: { type: 'string', description: 'a name', pattern: '^[a-z]+$' },
        code: { type: 'string', description: 'a code', pattern: '^[0-9]+$' },
        node: { type: 'string', description: 'a node. Configured now: pve1, pve2' },
        text: { type: 'string', description: 'a text', 'x-maxBytes': 8 },
        cores: { type: 'integer', minimum: 1, maximum: 8, description: 'cores', default: 2 },
        count: { type: 'integer', minimum: 3, maximum: 5, description: 'a count' },
        wait: { type: 'boolean', description: 'wait', default: true },
      },
      required: ['name'],
    });
  });

  it('limits come from config: node names, limits, defaults and the implicit image of nodes[].template', () => {
    const proxmox = {
      nodes: [{ name: 'a', template: 9001 }, { name: 'b', template: 9002 }],
      images: [],
      defaultImage: '',
      limits: LIMITS.limits,
      defaults: LIMITS.defaults,
    } as unknown as Config['proxmox'];
    expect(limitsFromConfig({ proxmox })).to.deep.equal({ nodes: ['a', 'b'], limits: LIMITS.limits, defaults: LIMITS.defaults, images: { default: ['a', 'b'] }, defaultImage: 'default', leases: LIMITS.leases, networks: { pools: [], nodes: { a: {}, b: {} } }, pools: [] });
  });

  it('limits carry each configured image with the nodes that serve it, and the default image (SPEC 27)', () => {
    const proxmox = {
      nodes: [{ name: 'a' }, { name: 'b' }],
      images: [
        { name: 'debian', templates: { a: 9001, b: 9002 } },
        { name: 'shared', templates: { b: { vmid: 9200, node: 'a' } } },
      ],
      defaultImage: 'shared',
      limits: LIMITS.limits,
      defaults: LIMITS.defaults,
    } as unknown as Config['proxmox'];
    const limits = limitsFromConfig({ proxmox });
    expect(limits.images).to.deep.equal({ debian: ['a', 'b'], shared: ['b'] });
    expect(limits.defaultImage).to.equal('shared');
    expect(limitsFromConfig({ proxmox: { ...proxmox, defaultImage: '' } }).defaultImage, 'empty: the first image').to.equal('debian');
  });

  it('requiredField makes a field required and keeps the rest', () => {
    const code = requiredField(TABLE.code);
    expect(code).to.deep.equal({ ...TABLE.code, presence: 'required' });
    expect(errorsOf({ name: 'a' }, { ...TABLE, code })).to.deep.equal([{ field: 'code', message: 'is required' }]);
  });
});

describe('shared patterns (SPEC 1)', () => {
  it('the shared name, uid and generation fields say in words what they take, in errors, the schema and the CLI', () => {
    expect(errorsOf({ name: 'Bad_Name', uid: 'a b', generation: 0 }, { name: nameField, uid: uidField, generation: generationField })).to.deep.equal([
      { field: 'name', message: 'must be a DNS label: 1 to 63 of a-z, 0-9 and "-", not starting or ending with "-"' },
      { field: 'uid', message: 'must be 1 to 64 of A-Z, a-z, 0-9, "_", "." and "-"' },
      { field: 'generation', message: `must be from 1 to ${Number.MAX_SAFE_INTEGER}, got 0` },
    ]);
    const { properties } = fieldsJsonSchema({ name: nameField, uid: uidField, generation: generationField }, LIMITS) as { properties: Record<string, { description: string }> };
    expect(properties.name?.description).to.equal('VM name, a DNS label');
    expect(properties.uid?.description).to.equal('Owner id of the VM (1 to 64 of A-Z a-z 0-9 _ . -)');
    expect(properties.generation?.description).to.equal('Desired-state generation of the name');
    expect([nameField.flag, uidField.flag]).to.deep.equal([{ name: 'name' }, { name: 'uid' }]);
  });

  it('DNS_LABEL: 1 to 63 of a-z 0-9 -, not starting or ending with -', () => {
    for (const name of ['a', '0', 'a-b', 'web-01', 'a'.repeat(63), `a${'-'.repeat(61)}b`]) expect(DNS_LABEL.test(name), name).to.equal(true);
    for (const name of ['', '-a', 'a-', '-', 'A', 'a_b', 'a.b', 'a'.repeat(64), 'ab\n', ' ab', 'é']) expect(DNS_LABEL.test(name), JSON.stringify(name)).to.equal(false);
  });

  it('UID: 1 to 64 of A-Z a-z 0-9 _ . -', () => {
    for (const uid of ['a', 'A-b_c.d', '0', 'x'.repeat(64)]) expect(UID.test(uid), uid).to.equal(true);
    for (const uid of ['', 'x'.repeat(65), 'a b', 'a/b', 'a:b', ' a', 'a\n']) expect(UID.test(uid), JSON.stringify(uid)).to.equal(false);
  });

  it('BRIDGE: a letter, then up to 14 of A-Z a-z 0-9 _ . -', () => {
    for (const bridge of ['v', 'vmbr0', 'Vmbr_1.2-x', `v${'x'.repeat(14)}`]) expect(BRIDGE.test(bridge), bridge).to.equal(true);
    for (const bridge of ['', '0vmbr', '_a', `v${'x'.repeat(15)}`, 'vm br', 'vmbr0\n', ' vmbr0']) expect(BRIDGE.test(bridge), JSON.stringify(bridge)).to.equal(false);
  });
});
