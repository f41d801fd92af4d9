// SPEC 2, 34: a create whose name is still held by a VM of a uid the name
// retired deletes that VM first (createReplacingRetired); that VM gone, its
// tenant hold ends too, and the new uid's stays. The provider is a stub
// raising the name-held error once; the holds are on the real Redis.
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { createJob } from '../../jobs/create.js';
import type { JobContext, JobDeps } from '../../jobs/types.js';
import type { DesiredRecord } from '../../src/desired-state.js';
import { silentLogger } from '../../src/log.js';
import { NameHeldByOtherUidError } from '../../src/provider/name-held.js';
import type { CreateSpec, DeleteRequest, Provider } from '../../src/provider/types.js';
import { TenantHoldStore } from '../../src/tenants/hold-store.js';
import { tenantHoldDeps } from '../../src/worker/tenant-hold-deps.js';
import { NO_ADDRESS_LEASES } from '../support/address-leases.js';
import { deletePrefix, keyPrefix, newRedis, uniquePrefix } from '../support/redis.js';
import { holdJson, putHold, testHold } from '../support/tenant-holds.js';

const RECORD: DesiredRecord = { name: 'app-1', state: 'present', uid: 'u-new', generation: 3, updatedAt: '2026-12-03T09:00:00.000Z', retiredUids: ['u-old'] };
const DATA = { name: 'app-1', uid: 'u-new', image: 'default', cores: 2, memoryMiB: 2048, diskGiB: 20, waitForAddress: true, generation: 3 };

describe("a create replacing a retired uid's VM ends that VM's tenant hold (SPEC 2, 34)", () => {
  let redis: Redis;
  let prefix: string;

  beforeEach(() => {
    redis = newRedis();
    prefix = keyPrefix(uniquePrefix('hold-retired'));
  });

  afterEach(async () => {
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it("deletes the retired uid's VM, ends its hold, keeps the new uid's, and says so in the job log", async () => {
    await putHold(redis, prefix, 'app-1', 'u-old', testHold('acme'));
    await putHold(redis, prefix, 'app-1', 'u-new', testHold('acme'));
    const steps: string[] = [];
    let held = true;
    const provider = {
      create(spec: CreateSpec) {
        steps.push(`create ${spec.uid}`);
        if (held) return Promise.reject(new NameHeldByOtherUidError('app-1', 7, 'u-old'));
        return Promise.resolve({ providerId: 'vms/8/app-1', vmid: 8, node: 'pve1', uid: spec.uid, state: 'Running', createdAt: new Date().toISOString(), image: 'default' });
      },
      delete(request: DeleteRequest) {
        steps.push(`delete ${request.uid ?? ''}`);
        held = false;
        return Promise.resolve({ deleted: true, seedsDeleted: 0 });
      },
    } as unknown as Provider;
    const registry = { get: (name: string) => Promise.resolve(name === 'app-1' ? RECORD : undefined) };
    const deps: JobDeps = {
      provider,
      registry,
      isNameLocked: () => Promise.resolve(false),
      saveHealth: () => Promise.resolve(),
      reconcile: () => Promise.resolve({}),
      leases: { expire: () => Promise.resolve({ kind: 'gone' }), warn: () => Promise.resolve({ warned: false }) },
      addresses: NO_ADDRESS_LEASES,
      tenantHolds: tenantHoldDeps(new TenantHoldStore(redis, prefix), registry),
      logger: silentLogger(),
    };
    const log: string[] = [];
    const ctx: JobContext = { signal: new AbortController().signal, jobId: 'create-app-1-3', log: (line) => void log.push(line), setLastKnown: () => undefined };

    await createJob.handler(DATA, deps, ctx);

    expect(steps).to.deep.equal(['create u-new', 'delete u-old', 'create u-new']);
    expect(await holdJson(redis, prefix, 'app-1', 'u-old')).to.equal(null);
    expect(await holdJson(redis, prefix, 'app-1', 'u-new')).to.not.equal(null);
    expect(await new TenantHoldStore(redis, prefix).usage('acme')).to.deep.equal({ vms: 1, cores: 2, memoryMiB: 2048, diskGiB: 20 });
    expect(log).to.include('released tenant hold of app-1 uid u-old (tenant acme: 1 VM, 2 cores, 2048 MiB, 20 GiB)');
  });
});
