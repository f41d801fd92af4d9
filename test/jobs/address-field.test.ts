// SPEC 29, SPEC 1 (issue 31): a create job's `address` (its lease) is a
// field only the door writes, like its generation: a caller cannot send
// one, the door's own is checked as the worker will check it, and a
// stored job with a lease of the wrong shape is refused by the worker.
import { expect } from 'chai';
import { validateEnqueuedJobData, validateJobData, validateStoredJobData } from '../../src/job-table/schema.js';
import type { JobLimits } from '../../src/job-table/schema.js';

const limits: JobLimits = {
  nodes: ['pve1'],
  limits: { maxCores: 16, maxMemoryMiB: 65536, maxDiskGiB: 500 },
  defaults: { cores: 2, memoryMiB: 2048, diskGiB: 10 },
  images: { default: ['pve1'] },
  defaultImage: 'default',
  leases: { defaultSeconds: 0, maxSeconds: 604800, onExpiry: 'delete' },
};
const LEASE = { pool: 'lan', address: '127.77.0.10', prefixLength: 24, gateway: '127.77.0.1', dns: ['127.0.0.53'], uid: 'u1', takenAt: '2030-01-02T03:04:05.000Z' };
const STORED = { name: 'web-1', uid: 'u1', image: 'default', cores: 2, memoryMiB: 2048, diskGiB: 10, waitForAddress: true, generation: 1 };

function errorsOf(result: { ok: boolean; errors?: { field: string; message: string }[] }): { field: string; message: string }[] {
  return result.ok ? [] : (result.errors ?? []);
}

describe('the create job\'s address lease (SPEC 29, SPEC 1)', () => {
  it('a caller cannot send one', () => {
    expect(errorsOf(validateJobData('create', { name: 'web-1', address: LEASE }, limits))).to.deep.equal([{ field: 'address', message: 'is not a known field' }]);
  });

  it("the door's lease passes the enqueue check and the worker's; a job without one is DHCP", () => {
    expect(validateEnqueuedJobData('create', { ...STORED, address: LEASE }, limits)).to.deep.equal({ ok: true, value: { ...STORED, address: LEASE } });
    expect(validateStoredJobData('create', { ...STORED, address: LEASE, step: 'cloned' }, limits).ok).to.equal(true);
    expect(validateStoredJobData('create', STORED, limits).ok).to.equal(true);
  });

  it('a lease of the wrong shape is refused naming what is wrong', () => {
    const bad: [unknown, string][] = [
      ['127.77.0.10', 'must be an address lease object {pool, address, prefixLength, gateway?, dns, uid, takenAt}'],
      [{ ...LEASE, address: '127.77.0.300' }, '.address must be an IPv4 address'],
      [{ ...LEASE, prefixLength: 31 }, '.prefixLength must be an integer from 8 to 30'],
      [{ ...LEASE, gateway: 'router' }, '.gateway must be an IPv4 address'],
      [{ ...LEASE, dns: '127.0.0.53' }, '.dns must be a list of at most 16 IPv4 addresses'],
      [{ ...LEASE, uid: 'a b' }, '.uid must be a uid'],
      [{ ...LEASE, takenAt: 'yesterday' }, '.takenAt must be an RFC 3339 time'],
      [{ ...LEASE, pool: 'Lan A' }, '.pool must be a pool name'],
      [{ ...LEASE, mac: 'aa:bb' }, 'has unknown key "mac"'],
    ];
    for (const [address, message] of bad) {
      expect(errorsOf(validateStoredJobData('create', { ...STORED, address }, limits)), JSON.stringify(address)).to.deep.equal([{ field: 'address', message }]);
    }
  });
});
