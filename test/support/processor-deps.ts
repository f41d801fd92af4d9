// What the processor tests build a processor from: the job definitions
// with create's handler replaced, and the deps its jobs get (the
// harness's provider, no health store, no sweep).
import { jobDefinitions } from '../../jobs/index.js';
import { createJob } from '../../jobs/create.js';
import type { AnyJobDefinition, JobDeps } from '../../jobs/types.js';
import { silentLogger } from '../../src/log.js';
import type { NameLocks } from '../../src/queue/name-lock.js';
import type { DesiredStateRegistry } from '../../src/queue/registry.js';
import { NO_ADDRESS_LEASES } from './address-leases.js';
import { NO_TENANT_HOLDS } from './tenant-holds.js';

/** The job definitions with create's handler replaced. */
export function withCreate(handler: AnyJobDefinition['handler']): AnyJobDefinition[] {
  return [{ ...createJob, handler }, ...jobDefinitions.filter((d) => d.name !== 'create')];
}

export function testJobDeps(provider: JobDeps['provider'], registry: DesiredStateRegistry, locks: NameLocks): JobDeps {
  return {
    provider,
    registry,
    isNameLocked: (name) => locks.isHeld(name),
    saveHealth: () => Promise.resolve(),
    reconcile: () => Promise.resolve({}),
    leases: { expire: () => Promise.resolve({ kind: 'gone' }), warn: () => Promise.resolve({ warned: false }) },
    addresses: NO_ADDRESS_LEASES,
    tenantHolds: NO_TENANT_HOLDS,
    logger: silentLogger(),
  };
}
