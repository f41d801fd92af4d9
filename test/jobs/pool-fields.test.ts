// SPEC 30, SPEC 1 (issue 32): a create's `pool` (the caller's: false asks
// the cold way), and the stored fields only the service writes: `claim`
// (the accept's) and `poolMember` (the refill's). A caller can send
// neither; the service's own pass the door's check and the worker's; a
// stored job with a claim of the wrong shape is refused naming it.
import { expect } from 'chai';
import { jobJsonSchema, validateEnqueuedJobData, validateJobData, validateStoredJobData } from '../../src/job-table/schema.js';
import type { JobLimits } from '../../src/job-table/schema.js';

const limits: JobLimits = {
  nodes: ['pve1'],
  limits: { maxCores: 16, maxMemoryMiB: 65536, maxDiskGiB: 500 },
  defaults: { cores: 2, memoryMiB: 2048, diskGiB: 10 },
  images: { default: ['pve1'] },
  defaultImage: 'default',
  leases: { defaultSeconds: 0, maxSeconds: 604800, onExpiry: 'delete' },
};
const CLAIM = { pool: 'web', member: 'pvep-pool-web-3', memberUid: 'u-m3', vmid: 100123, node: 'pve1', address: '127.77.0.10', claimedAt: '2030-01-02T03:04:05.000Z' };
const STORED = { name: 'web-1', uid: 'u1', image: 'default', cores: 2, memoryMiB: 2048, diskGiB: 10, waitForAddress: true, generation: 1 };

function errorsOf(result: { ok: boolean; errors?: { field: string; message: string }[] }): { field: string; message: string }[] {
  return result.ok ? [] : (result.errors ?? []);
}

describe("a create's pool, claim and poolMember fields (SPEC 30, SPEC 1)", () => {
  it('pool defaults to true, takes false, and refuses anything else naming pool', () => {
    const given = validateJobData('create', { name: 'web-1' }, limits);
    expect(given.ok && given.value.pool).to.equal(true);
    const cold = validateJobData('create', { name: 'web-1', pool: false }, limits);
    expect(cold.ok && cold.value.pool).to.equal(false);
    expect(errorsOf(validateJobData('create', { name: 'web-1', pool: 'no' }, limits))).to.deep.equal([{ field: 'pool', message: 'must be true or false' }]);
    expect((jobJsonSchema('create', limits).properties as Record<string, unknown>).pool).to.deep.equal({ type: 'boolean', description: "false: never take a warm pool's VM (SPEC 30)", default: true });
  });

  it('a caller can send neither claim nor poolMember', () => {
    expect(errorsOf(validateJobData('create', { name: 'web-1', claim: CLAIM, poolMember: 'web' }, limits))).to.deep.equal([
      { field: 'claim', message: 'is not a known field' },
      { field: 'poolMember', message: 'is not a known field' },
    ]);
  });

  it("the service's claim and poolMember pass the enqueue check and the worker's; the stored job carries no pool", () => {
    expect(validateEnqueuedJobData('create', { ...STORED, claim: CLAIM }, limits)).to.deep.equal({ ok: true, value: { ...STORED, claim: CLAIM } });
    expect(validateStoredJobData('create', { ...STORED, poolMember: 'web' }, limits).ok).to.equal(true);
    expect(errorsOf(validateStoredJobData('create', { ...STORED, pool: true }, limits))).to.deep.equal([{ field: 'pool', message: 'is not a known field' }]);
  });

  it('a claim or poolMember of the wrong shape is refused naming what is wrong', () => {
    const { address: _address, ...withoutAddress } = CLAIM;
    expect(validateStoredJobData('create', { ...STORED, claim: withoutAddress }, limits).ok, 'address is optional').to.equal(true);
    const bad: [unknown, string][] = [
      ['pvep-pool-web-3', 'must be a pool claim object {pool, member, memberUid, vmid, node, address?, claimedAt, generation?}'],
      [{ ...CLAIM, extra: 1 }, 'has unknown key "extra"'],
      [{ ...CLAIM, pool: 'Web' }, '.pool must be a pool name'],
      [{ ...CLAIM, member: 'Pool_3' }, ".member must be a member's name"],
      [{ ...CLAIM, memberUid: '' }, '.memberUid must be a uid'],
      [{ ...CLAIM, vmid: 99 }, '.vmid must be a VMID, an integer from 100 to 999999999'],
      [{ ...CLAIM, node: '' }, '.node must be a node name'],
      [{ ...CLAIM, address: '127.77.0.300' }, '.address must be an IPv4 address'],
      [{ ...CLAIM, claimedAt: 'yesterday' }, '.claimedAt must be an RFC 3339 time'],
      [{ ...CLAIM, generation: 0 }, '.generation must be a positive integer'],
    ];
    for (const [claim, message] of bad) expect(errorsOf(validateStoredJobData('create', { ...STORED, claim }, limits)), message).to.deep.equal([{ field: 'claim', message }]);
    expect(errorsOf(validateStoredJobData('create', { ...STORED, poolMember: 'Web pool' }, limits))).to.deep.equal([{ field: 'poolMember', message: 'must be a pool name' }]);
  });
});
