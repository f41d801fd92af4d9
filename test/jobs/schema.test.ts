// SPEC 1: each job's data has one schema, used by the producer, the API
// and the worker; every failing field is named with its reason.
import { expect } from 'chai';
import { JobRegistryError, buildJobRegistry, jobDefinitions } from '../../jobs/index.js';
import { JOB_NAMES, jobJsonSchema, validateJobData, validateStoredJobData } from '../../src/job-table/schema.js';
import type { JobLimits } from '../../src/job-table/schema.js';

const limits: JobLimits = {
  nodes: ['pve1', 'pve2'],
  limits: { maxCores: 16, maxMemoryMiB: 65536, maxDiskGiB: 500 },
  defaults: { cores: 2, memoryMiB: 2048, diskGiB: 10 },
  images: { default: ['pve1', 'pve2'] },
  defaultImage: 'default',
  leases: { defaultSeconds: 0, maxSeconds: 604800, onExpiry: 'delete' },
};

function failingFields(job: (typeof JOB_NAMES)[number], data: unknown): string[] {
  const result = validateJobData(job, data, limits);
  return result.ok ? [] : result.errors.map((e) => e.field).sort();
}

describe('job data schemas (SPEC 1)', () => {
  it('fills defaults from config and keeps what was given', () => {
    const result = validateJobData('create', { name: 'web-1' }, limits);
    expect(result).to.deep.equal({ ok: true, value: { name: 'web-1', image: 'default', cores: 2, memoryMiB: 2048, diskGiB: 10, waitForAddress: true, ttlSeconds: 0, onExpiry: 'delete', pool: true } });
  });

  it('names are DNS labels', () => {
    for (const good of ['a', 'web-1', '0abc', 'a'.repeat(63)]) expect(failingFields('check', { name: good }), good).to.deep.equal([]);
    for (const bad of ['', '-a', 'a-', 'A', 'a_b', 'a.b', 'a'.repeat(64), 'é']) expect(failingFields('check', { name: bad }), bad).to.deep.equal(['name']);
  });

  it('lists every failing field at once, with bounds from config', () => {
    const result = validateJobData('create', { name: 'x', uid: 'has space', node: 'pve9', cores: 17, memoryMiB: 0, diskGiB: 2.5, vlanTag: 0, bridge: '1bad', waitForAddress: 'yes', extra: 1 }, limits);
    expect(result.ok).to.equal(false);
    if (result.ok) return;
    const byField = Object.fromEntries(result.errors.map((e) => [e.field, e.message]));
    expect(Object.keys(byField).sort()).to.deep.equal(['bridge', 'cores', 'diskGiB', 'extra', 'memoryMiB', 'node', 'uid', 'vlanTag', 'waitForAddress']);
    expect(byField.cores).to.equal('must be from 1 to 16, got 17');
    expect(byField.node).to.equal('must be one of the configured values: pve1, pve2');
    expect(byField.extra).to.equal('is not a known field');
  });

  it('bounds userData and networkConfig to 64 KiB of UTF-8 text', () => {
    expect(failingFields('create', { name: 'x', userData: 'é'.repeat(32 * 1024) })).to.deep.equal([]);
    expect(failingFields('create', { name: 'x', userData: 'é'.repeat(32 * 1024 + 1) })).to.deep.equal(['userData']);
    expect(failingFields('create', { name: 'x', networkConfig: 'ok\uD800' })).to.deep.equal(['networkConfig']);
  });

  it('checks a default from config like a given value: the worker would refuse it too (SPEC 24)', () => {
    const result = validateJobData('create', { name: 'x' }, { ...limits, defaults: { ...limits.defaults, memoryMiB: 8 } });
    expect(result.ok ? [] : result.errors).to.deep.equal([{ field: 'memoryMiB', message: 'must be from 16 to 65536, got 8 (the default from config)' }]);
  });

  it('the JSON Schema bounds texts in bytes, not characters, and memory from Proxmox\'s floor (SPEC 24)', () => {
    const schema = jobJsonSchema('create', limits) as { properties: Record<string, Record<string, unknown>> };
    for (const field of ['userData', 'networkConfig']) {
      expect(schema.properties[field], field).to.include({ 'x-maxBytes': 64 * 1024 });
      expect(schema.properties[field], field).not.to.have.property('maxLength');
    }
    expect(schema.properties.memoryMiB).to.include({ minimum: 16, maximum: 65536 });
  });

  it('refuses fields named like Object.prototype members', () => {
    expect(failingFields('check', JSON.parse('{"name":"x","__proto__":{},"constructor":1}'))).to.deep.equal(['__proto__', 'constructor']);
  });

  it('refuses a non-object', () => {
    for (const data of [null, [], 'x', 3]) expect(failingFields('check', data)).to.deep.equal(['(data)']);
  });

  it('stored jobs must carry the uid and generation the producer added (SPEC 2)', () => {
    const stored = validateStoredJobData('create', { name: 'x', cores: 1, memoryMiB: 16, diskGiB: 1, waitForAddress: true }, limits);
    expect(stored.ok ? [] : stored.errors.map((e) => e.field).sort()).to.deep.equal(['generation', 'uid']);
    expect(failingFields('delete', { name: 'x', generation: 3 })).to.deep.equal(['generation'], 'callers never send a generation');
  });

  it('the JSON Schema states the same fields, bounds and required keys', () => {
    const schema = jobJsonSchema('create', limits) as { properties: Record<string, Record<string, unknown>>; required: string[]; additionalProperties: boolean };
    expect(schema.additionalProperties).to.equal(false);
    expect(schema.required).to.deep.equal(['name']);
    expect(schema.properties.cores).to.include({ type: 'integer', minimum: 1, maximum: 16, default: 2 });
    // Values from config are named in the description, not an enum a generated client would freeze.
    expect(schema.properties.node).to.not.have.property('enum');
    expect(schema.properties.node?.description).to.match(/Configured now: pve1, pve2$/);
    expect(schema.properties.image).to.not.have.property('enum');
    expect(schema.properties.image?.description).to.match(/Configured now: \S/);
    expect(schema.properties.vlanTag).to.include({ minimum: 1, maximum: 4094 });
    expect(new RegExp(String(schema.properties.name?.pattern)).test('web-1')).to.equal(true);
    for (const job of JOB_NAMES) expect(jobJsonSchema(job, limits)).to.have.property('type', 'object');
  });
});

describe('job registry', () => {
  it('serves every job name with exactly one handler', () => {
    expect([...buildJobRegistry().keys()].sort()).to.deep.equal([...JOB_NAMES].sort());
  });

  it('fails start-up when a job has no handler or two', () => {
    const [first, ...rest] = jobDefinitions;
    expect(() => buildJobRegistry(rest)).to.throw(JobRegistryError, `no handler for job "${first?.name}"`);
    expect(() => buildJobRegistry([...jobDefinitions, ...rest.slice(0, 1)])).to.throw(JobRegistryError, 'has two handlers');
  });
});
