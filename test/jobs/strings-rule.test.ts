// The list rule of the field table (src/job-table/fields.ts `strings`, SPEC 1, 27),
// as the create's sshKeys uses it: every failing item named `sshKeys[i]`,
// the list itself named `sshKeys`, and the JSON Schema an array of strings.
import { expect } from 'chai';
import { SSH_KEYS_MAX, createInputFields } from '../../src/job-table/create.schema.js';
import { fieldsJsonSchema, validateFields } from '../../src/job-table/fields.js';
import type { FieldError, JobLimits } from '../../src/job-table/fields.js';
import { SSH_KEY_TYPES } from '../../src/job-table/ssh-key.js';
import { fixtureKey } from '../support/ssh-keys.js';

const limits: JobLimits = { nodes: ['pve1'], limits: { maxCores: 8, maxMemoryMiB: 8192, maxDiskGiB: 100 }, defaults: { cores: 1, memoryMiB: 512, diskGiB: 10 }, images: { default: ['pve1'] }, defaultImage: 'default', leases: { defaultSeconds: 0, maxSeconds: 604800, onExpiry: 'delete' } };
const fields = { sshKeys: createInputFields.sshKeys };
const key = fixtureKey('ed25519.pub');

function errorsOf(sshKeys: unknown): FieldError[] {
  const result = validateFields(fields, { sshKeys }, limits);
  return result.ok ? [] : result.errors;
}

describe('the strings rule of the field table, as sshKeys (SPEC 1, 27)', () => {
  it('takes a list of keys as given, and an empty list', () => {
    expect(validateFields(fields, { sshKeys: [key, fixtureKey('ecdsa-384.pub')] }, limits)).to.deep.equal({ ok: true, value: { sshKeys: [key, fixtureKey('ecdsa-384.pub')] } });
    expect(validateFields(fields, { sshKeys: [] }, limits)).to.deep.equal({ ok: true, value: { sshKeys: [] } });
    expect(validateFields(fields, {}, limits)).to.deep.equal({ ok: true, value: {} });
  });

  it('names every failing item by its index, and only those', () => {
    expect(errorsOf([key, 'ssh-dss AAAA', 7, 'ssh-ed25519 \uD800'])).to.deep.equal([
      { field: 'sshKeys[1]', message: `is not an OpenSSH public key: its type is ssh-dss, allowed: ${SSH_KEY_TYPES.join(', ')}` },
      { field: 'sshKeys[2]', message: 'must be a string' },
      { field: 'sshKeys[3]', message: 'must be valid UTF-8 text' },
    ]);
  });

  it('refuses a list that is not one, or too long, naming the field', () => {
    expect(errorsOf(key)).to.deep.equal([{ field: 'sshKeys', message: 'must be a list of strings' }]);
    expect(errorsOf(Array.from({ length: SSH_KEYS_MAX }, () => key))).to.deep.equal([]);
    expect(errorsOf(Array.from({ length: SSH_KEYS_MAX + 1 }, () => key))).to.deep.equal([{ field: 'sshKeys', message: `must have at most ${SSH_KEYS_MAX} items, got ${SSH_KEYS_MAX + 1}` }]);
  });

  it('bounds each item in bytes before reading it as a key', () => {
    expect(errorsOf([`${key} ${'é'.repeat(4096)}`])).to.deep.equal([{ field: 'sshKeys[0]', message: `must be at most 8192 bytes (UTF-8), got ${key.length + 1 + 8192}` }]);
  });

  it('documents it as an array of strings with its bounds', () => {
    const schema = fieldsJsonSchema(fields, limits) as { properties: { sshKeys: Record<string, unknown> } };
    expect(schema.properties.sshKeys).to.include({ type: 'array', maxItems: SSH_KEYS_MAX });
    expect(schema.properties.sshKeys.items).to.include({ type: 'string', 'x-maxBytes': 8192 });
  });
});
