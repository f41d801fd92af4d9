// SPEC 30 (issue 32): which creates claim from a warm pool, and the
// shape's fingerprint that tells a changed shape.
import { expect } from 'chai';
import { shapeFingerprint } from '../../src/pools/fingerprint.js';
import { poolForCreate, type PoolDeciding } from '../../src/pools/pool-for-create.js';
import type { PoolConfig } from '../../src/pools/types.js';

const WEB: PoolConfig = { name: 'web', image: 'ubuntu', cores: 2, memoryMiB: 2048, diskGiB: 10, minIdle: 2, maxIdle: 2, maxAgeMinutes: 1440 };
const PINNED: PoolConfig = { ...WEB, name: 'pinned', node: 'pve2' };
const TAGGED: PoolConfig = { ...WEB, name: 'tagged', bridge: 'vmbr1', vlanTag: 20 };
const POOLS = [WEB, PINNED, TAGGED];
const CREATE: PoolDeciding = { image: 'ubuntu', cores: 2, memoryMiB: 2048, diskGiB: 10 };

describe('poolForCreate: which creates claim (SPEC 30)', () => {
  it("a create of a pool's shape that names no node claims from the pool with no node", () => {
    expect(poolForCreate(CREATE, POOLS)?.name).to.equal('web');
    expect(poolForCreate({ ...CREATE, pool: true }, POOLS)?.name).to.equal('web');
  });

  it("a create naming the pool's node claims from it; a pool with no node serves no create that names one", () => {
    expect(poolForCreate({ ...CREATE, node: 'pve2' }, POOLS)?.name).to.equal('pinned');
    expect(poolForCreate({ ...CREATE, node: 'pve1' }, POOLS)).to.equal(undefined);
  });

  it('bridge and vlanTag must be equal, absent matching only absent', () => {
    expect(poolForCreate({ ...CREATE, bridge: 'vmbr1', vlanTag: 20 }, POOLS)?.name).to.equal('tagged');
    expect(poolForCreate({ ...CREATE, bridge: 'vmbr1' }, POOLS)).to.equal(undefined);
    expect(poolForCreate({ ...CREATE, vlanTag: 20 }, POOLS)).to.equal(undefined);
  });

  it('another image or size goes cold', () => {
    for (const other of [{ image: 'debian' }, { cores: 4 }, { memoryMiB: 4096 }, { diskGiB: 11 }]) expect(poolForCreate({ ...CREATE, ...other }, POOLS), JSON.stringify(other)).to.equal(undefined);
  });

  it('userData, networkConfig or pool false go cold; sshKeys do not matter', () => {
    expect(poolForCreate({ ...CREATE, userData: '#cloud-config\n' }, POOLS)).to.equal(undefined);
    expect(poolForCreate({ ...CREATE, networkConfig: 'version: 2\n' }, POOLS)).to.equal(undefined);
    expect(poolForCreate({ ...CREATE, pool: false }, POOLS)).to.equal(undefined);
    expect(poolForCreate({ ...CREATE, sshKeys: ['ssh-ed25519 AAAA'] }, POOLS)?.name).to.equal('web');
  });

  it('sshKeys more than one agent file-write takes (61440 characters of the base64 of their UTF-8 bytes) go cold: the claim could not write them', () => {
    // 'ssh-rsa ' and the newline are 9 bytes: 46080 bytes in all are 61440 characters of base64.
    const fits = `ssh-rsa ${'A'.repeat(46_080 - 9)}`;
    expect(poolForCreate({ ...CREATE, sshKeys: [fits] }, POOLS)?.name, '46080 bytes fit').to.equal('web');
    expect(poolForCreate({ ...CREATE, sshKeys: [`${fits}A`] }, POOLS), 'one byte more does not').to.equal(undefined);
    // 23053 characters, but 46094 UTF-8 bytes (ö is two).
    expect(poolForCreate({ ...CREATE, sshKeys: [`ssh-rsa AAAA ${'ö'.repeat(23_040)}`] }, POOLS), 'measured in bytes, not characters').to.equal(undefined);
  });

  it('no pools: cold', () => {
    expect(poolForCreate(CREATE, [])).to.equal(undefined);
  });
});

describe('shapeFingerprint (SPEC 30)', () => {
  it('is the same text for the same shape, whatever else the pool says', () => {
    const other: PoolConfig = { ...WEB, name: 'other', minIdle: 9, maxIdle: 9 };
    expect(shapeFingerprint(WEB)).to.equal(shapeFingerprint(other));
    expect(shapeFingerprint(WEB)).to.equal('v1 image=ubuntu cores=2 memoryMiB=2048 diskGiB=10 bridge=- vlanTag=- node=-');
  });

  it('differs when any field of the shape differs', () => {
    const changes: Partial<PoolConfig>[] = [{ image: 'debian' }, { cores: 3 }, { memoryMiB: 4096 }, { diskGiB: 20 }, { bridge: 'vmbr1' }, { vlanTag: 5 }, { node: 'pve1' }];
    const prints = new Set([shapeFingerprint(WEB), ...changes.map((change) => shapeFingerprint({ ...WEB, ...change }))]);
    expect(prints.size).to.equal(changes.length + 1);
  });
});
