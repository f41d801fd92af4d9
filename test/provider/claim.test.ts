// SPEC 30, the worker's claim path steps 1 to 4 on the in-memory fake: a
// claim renames the member in one config write (name, mark, tags, ide2,
// all schema parameters), writes exactly the claimer's keys through the
// guest agent, answers Running with the address and `origin: pool`; a
// rerun after the rename goes on with the keys (the VM then carrying the
// claimer's name is the claimed one); a member gone or not the claim's, or
// a claimer whose name another VM carries, is a ClaimLostError before any
// write.
import { expect } from 'chai';
import { ClaimLostError } from '../../src/provider/claim-lost.js';
import { EJECTED_CDROM } from '../../src/provider/claim.js';
import { formatMark, parseMark } from '../../src/provider/mark.js';
import type { ClaimRequest, CreateSpec, OperationContext } from '../../src/provider/types.js';
import type { PoolClaim } from '../../src/pools/types.js';
import { FILE_WRITE_MAX_CHARS } from '../../src/pools/guest-user.js';
import { ApiSchema, verifyParameters } from '../../src/sim/schema.js';
import { FakeProxmox, type FakeMethod } from '../fakes/fake-proxmox.js';
import { rejection } from '../support/rejection.js';
import { addOurVm, harness, TAG, type Harness } from './harness.js';

const MEMBER = 'pvep-pool-small-7';
const MEMBER_UID = 'a0000000-0000-4000-8000-00000000000a';
const CLAIMER = 'build-42';
const CLAIMER_UID = 'c0000000-0000-4000-8000-00000000000c';
const VMID = 123456;
const MEMBER_CREATED = new Date('2026-11-30T08:00:00Z');
const KEYS = ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKo7kRlyCWLgmbAq3UtdA7kkXYKnhS1nAfIiAYVdoBs/ alice@laptop', 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOq3Y2Ypt2kWm0tB3WJn8h4zq6sWcC9mR3dYkD8tA1bB bob'];
const WRITES: FakeMethod[] = ['clone', 'upload', 'putConfig', 'resize', 'start', 'stop', 'destroy', 'deleteVolume', 'agentFileWrite'];

function claimOf(over: Partial<PoolClaim> = {}): PoolClaim {
  return { pool: 'small', member: MEMBER, memberUid: MEMBER_UID, vmid: VMID, node: 'pv1-1', address: '10.0.0.7', claimedAt: '2026-11-30T10:00:00.000Z', ...over };
}

function spec(over: Partial<CreateSpec> = {}): CreateSpec {
  return { name: CLAIMER, uid: CLAIMER_UID, cores: 2, memoryMiB: 2048, diskGiB: 10, waitForAddress: true, sshKeys: KEYS, ...over };
}

function request(over: Partial<ClaimRequest> = {}): ClaimRequest {
  return { spec: spec(), claim: claimOf(), user: 'debian', ...over };
}

/** A running, idle member as its create left it: our tag and the pool tag, its seed on ide2, its mark. */
function addMember(h: Harness): void {
  addOurVm(h.pve, MEMBER, MEMBER_UID, {
    vmid: VMID,
    status: 'running',
    qmpstatus: 'running',
    config: {
      description: formatMark(MEMBER_UID, MEMBER_CREATED),
      tags: `debian;${TAG};${TAG}-pool`,
      ide2: `proxy-seeds:iso/${MEMBER}-seed.iso,media=cdrom`,
      boot: 'order=scsi0;ide2',
    },
  });
}

function writes(h: Harness): FakeMethod[] {
  return h.pve.methods().filter((m) => WRITES.includes(m));
}

const filesOf = (h: Harness): Record<string, string> | undefined => h.pve.vm(VMID)?.files;

describe('claim (SPEC 30)', () => {
  it('renames the member in one config write, writes the keys, and answers Running with the address from the pool', async () => {
    const h = harness();
    addMember(h);
    const steps: string[] = [];
    const result = await h.provider.claim(request(), { ...h.ctx, progress: (s) => void steps.push(s) });

    expect(writes(h)).to.deep.equal(['putConfig', 'agentFileWrite']);
    const config = h.pve.vm(VMID)!.config;
    expect(config).to.include({ name: CLAIMER, tags: `debian;${TAG}`, ide2: EJECTED_CDROM });
    // The mark is the claimer's; the VM's creation time stays the member's (SPEC 11).
    expect(parseMark(config.description)).to.deep.equal({ uid: CLAIMER_UID, writtenAtCreate: MEMBER_CREATED.toISOString() });
    expect(filesOf(h)).to.deep.equal({ '/home/debian/.ssh/authorized_keys': `${KEYS[0]}\n${KEYS[1]}\n` });
    expect(result).to.deep.include({
      providerId: `vms/${VMID}/${CLAIMER}`,
      vmid: VMID,
      node: 'pv1-1',
      uid: CLAIMER_UID,
      state: 'Running',
      address: '10.0.0.7',
      createdAt: MEMBER_CREATED.toISOString(),
      image: 'default',
      origin: 'pool',
    });
    expect(steps).to.deep.equal(['configured', 'running', 'address']);
    // Two reads (the member's config, the listing for a VM of the claimer's name), two writes: no agent read when the claim has the address.
    expect(h.pve.methods()).to.deep.equal(['getConfig', 'clusterResources', 'putConfig', 'agentFileWrite']);
  });

  it('sends in its config write only parameters of PUT /nodes/{node}/qemu/{vmid}/config, in their formats (ide2, tags)', async () => {
    const h = harness();
    addMember(h);
    await h.provider.claim(request(), h.ctx);
    const [node, vmid, params] = h.pve.callsTo('putConfig')[0]!.args as [string, number, Record<string, string | number>];
    expect(Object.keys(params).sort()).to.deep.equal(['description', 'ide2', 'name', 'tags']);
    const route = ApiSchema.load().match('PUT', `/nodes/${node}/qemu/${vmid}/config`);
    expect(route).to.not.equal(undefined);
    const values = Object.fromEntries(Object.entries({ ...route!.pathParams, ...params }).map(([k, v]) => [k, String(v)]));
    expect(() => verifyParameters(route!.properties, values)).to.not.throw();
  });

  it("writes root's keys into /root, and an empty authorized_keys when the create has no keys", async () => {
    const h = harness();
    addMember(h);
    await h.provider.claim(request({ user: 'root', spec: spec({ sshKeys: undefined }) }), h.ctx);
    expect(filesOf(h)).to.deep.equal({ '/root/.ssh/authorized_keys': '' });
  });

  it('a rerun after the rename writes no config again, writes the keys again and answers the same', async () => {
    const h = harness();
    addMember(h);
    const first = await h.provider.claim(request(), h.ctx);
    h.pve.vm(VMID)!.files = {};
    h.pve.calls.length = 0;
    const again = await h.provider.claim(request(), h.ctx);
    expect(writes(h)).to.deep.equal(['agentFileWrite']);
    expect(filesOf(h)).to.deep.equal({ '/home/debian/.ssh/authorized_keys': `${KEYS[0]}\n${KEYS[1]}\n` });
    expect(again).to.deep.equal(first);
  });

  it('says it renamed right after the config write, before the keys: a file-write failing after it leaves the rename reported; a rerun reports it again', async () => {
    const h = harness();
    addMember(h);
    const seen: FakeMethod[][] = [];
    const renamed = () => {
      seen.push(writes(h));
      return Promise.resolve();
    };
    h.pve.failNext('agentFileWrite', new Error('agent down'));
    expect((await rejection(h.provider.claim(request({ renamed }), h.ctx))).message).to.match(/agent down/);
    expect(seen, 'reported once the rename was written, before the keys').to.deep.equal([['putConfig']]);
    await h.provider.claim(request({ renamed }), h.ctx);
    expect(seen, 'the rerun finds it renamed and reports it again').to.have.length(2);
    const lost = harness();
    let called = false;
    await rejection(lost.provider.claim(request({ renamed: () => Promise.resolve(void (called = true)) }), lost.ctx));
    expect(called, 'not for a lost claim').to.equal(false);
  });

  it('a member gone is a ClaimLostError (gone), and nothing is written', async () => {
    const h = harness();
    const err = await rejection(h.provider.claim(request(), h.ctx));
    expect(err).to.be.instanceOf(ClaimLostError);
    expect(err).to.include({ lost: 'gone', errorClass: 'Permanent' });
    expect(err.message).to.equal(`claim of ${MEMBER} for ${CLAIMER}: VM ${VMID} is gone from pv1-1`);
    expect(writes(h)).to.deep.equal([]);
  });

  it("a VM at the claim's VMID that is neither the member nor the claimer is a ClaimLostError (not-the-member), and nothing is written", async () => {
    for (const [name, uid] of [['someone-else', MEMBER_UID], [MEMBER, 'f0000000-0000-4000-8000-00000000000f'], [CLAIMER, MEMBER_UID]] as const) {
      const h = harness();
      addOurVm(h.pve, name, uid, { vmid: VMID, status: 'running', qmpstatus: 'running' });
      const err = await rejection(h.provider.claim(request(), h.ctx));
      expect(err, `${name} ${uid}`).to.be.instanceOf(ClaimLostError);
      expect(err).to.include({ lost: 'not-the-member' });
      expect(writes(h)).to.deep.equal([]);
    }
  });

  it("a VM already named as the claimer (an earlier uid's whose delete was superseded, or the same uid's) is a ClaimLostError (name-held) before the rename: the name never gets two VMs (SPEC 2, 30)", async () => {
    const RETIRED_UID = 'b0000000-0000-4000-8000-00000000000b';
    for (const uid of [RETIRED_UID, CLAIMER_UID]) {
      const h = harness();
      addMember(h);
      addOurVm(h.pve, CLAIMER, uid, { vmid: VMID + 1, status: 'running', qmpstatus: 'running' });
      const err = await rejection(h.provider.claim(request(), h.ctx));
      expect(err, uid).to.be.instanceOf(ClaimLostError);
      expect(err).to.include({ lost: 'name-held' });
      expect(err.message).to.equal(`claim of ${MEMBER} for ${CLAIMER}: VM ${VMID + 1} on pv1-1 is named ${CLAIMER} already (mark uid ${uid}); the member is not renamed`);
      expect(writes(h), 'nothing written: the member keeps its name and mark for the lost claim to delete').to.deep.equal([]);
      expect(h.pve.vm(VMID)!.config).to.include({ name: MEMBER });
    }
  });

  it("a VM renamed to the claimer moments ago, which pvestatd still lists under its old name, is found at the registry's last-known VMID: name-held, nothing written (SPEC 2, 28, 30)", async () => {
    const claimAgain = async (knownVmid?: number) => {
      const h = harness({ pve: new FakeProxmox({ statdEvery: Number.MAX_SAFE_INTEGER }) });
      addMember(h);
      // An earlier claim's member, sampled by pvestatd under its member name, then renamed to the claimer.
      h.pve.addVm({ vmid: VMID + 1, node: 'pv1-1', config: { name: 'pvep-pool-small-3' } });
      h.pve.statdCycle();
      addOurVm(h.pve, CLAIMER, CLAIMER_UID, { vmid: VMID + 1, status: 'running', qmpstatus: 'running' });
      return { h, outcome: await h.provider.claim(request(knownVmid === undefined ? {} : { knownVmid }), h.ctx).catch((err: unknown) => err) };
    };
    const blind = await claimAgain();
    expect(blind.outcome, 'the listing alone does not see the rename').not.to.be.instanceOf(Error);
    const known = await claimAgain(VMID + 1);
    expect(known.outcome).to.be.instanceOf(ClaimLostError);
    expect(known.outcome).to.include({ lost: 'name-held' });
    expect(writes(known.h)).to.deep.equal([]);
  });

  it('keys that do not fit one agent/file-write are a ClaimLostError (keys-too-long) before any call', async () => {
    const h = harness();
    addMember(h);
    const big = `ssh-rsa ${'A'.repeat(8000)} k`;
    const sshKeys = Array.from({ length: Math.ceil(FILE_WRITE_MAX_CHARS / big.length) + 1 }, () => big);
    const err = await rejection(h.provider.claim(request({ spec: spec({ sshKeys }) }), h.ctx));
    expect(err).to.be.instanceOf(ClaimLostError);
    expect(err).to.include({ lost: 'keys-too-long' });
    expect(h.pve.methods()).to.deep.equal([]);
  });

  it('runs the lock check before each write: a lost lock stops it before the next one (SPEC 3)', async () => {
    const h = harness();
    addMember(h);
    let checks = 0;
    const ctx: OperationContext = {
      ...h.ctx,
      beforeWrite: () => {
        checks += 1;
        if (checks === 2) throw new Error('lock lost');
      },
    };
    expect((await rejection(h.provider.claim(request(), ctx))).message).to.equal('lock lost');
    expect(writes(h)).to.deep.equal(['putConfig']);
    expect(filesOf(h)).to.equal(undefined);
  });

  it("takes the claimer's lease first, and asks the agent once when neither the lease nor the member has an address", async () => {
    const leased = harness();
    addMember(leased);
    const lease: NonNullable<CreateSpec['address']> = { pool: 'lan', address: '10.9.0.5', prefixLength: 24, dns: [], uid: CLAIMER_UID, takenAt: '2026-11-30T10:00:00.000Z' };
    expect((await leased.provider.claim(request({ spec: spec({ address: lease }) }), leased.ctx)).address).to.equal('10.9.0.5');

    const h = harness();
    addMember(h);
    const result = await h.provider.claim(request({ claim: claimOf({ address: undefined }) }), h.ctx);
    expect(h.pve.count('agentInterfaces')).to.equal(1);
    expect(result.address).to.match(/^192\.168\./);
  });

  it('refuses an image user that is not a login name, before any call', async () => {
    const h = harness();
    addMember(h);
    const err = await rejection(h.provider.claim(request({ user: '../etc' }), h.ctx));
    expect(err).to.include({ errorClass: 'Permanent' });
    expect(err).to.not.be.instanceOf(ClaimLostError);
    expect(h.pve.methods()).to.deep.equal([]);
  });
});
