// The tenants' quota holds (SPEC 34) as the worker, the sweep and the
// metrics read and end them, on the shared layout of src/redis-keys.ts: a
// hold under `<name> <uid>` naming its tenant and the VM's sizes, and each
// tenant's sums of them. The door takes holds (RECORD_PRESENT); this ends
// them and reads the sums.
import type { ReleaseGuard } from '../addresses/address-pool-store.js';
import type { RedisClient } from '../redis-script.js';
import { keys } from '../redis-keys.js';
import { RELEASE_HOLD, SETTLE_HOLD } from './hold-scripts.js';
import { HELD_QUOTAS, NO_USAGE, type TenantUsage } from './types.js';
import { readAllUsage, readUsage } from './usage-read.js';

/** One create's hold: its tenant, and what it counts against that tenant's quotas (vms is 1). */
export interface TenantHold extends TenantUsage {
  tenant: string;
}

/** A hold as it is kept: whose VM it is for, and the hold. */
export interface HeldTenantHold extends TenantHold {
  name: string;
  uid: string;
}

/** A field of the holds hash (the address leases' holder shape). */
export function holdField(name: string, uid: string): string {
  return `${name} ${uid}`;
}

/** The hold's JSON as the accept's script writes it; undefined when it names no tenant. */
export function parseHold(json: string): TenantHold | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const fields = value as Record<string, unknown>;
  if (typeof fields.tenant !== 'string' || fields.tenant === '') return undefined;
  const hold: TenantHold = { tenant: fields.tenant, ...NO_USAGE };
  for (const quota of HELD_QUOTAS) {
    const size = fields[quota];
    hold[quota] = typeof size === 'number' && Number.isFinite(size) && size > 0 ? size : 0;
  }
  return hold;
}

export class TenantHoldStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  /** RELEASE_HOLD's and SETTLE_HOLD's keys: the holds, the sums, the name's record. */
  private scriptKeys(name: string): string[] {
    return [keys.tenantHolds(this.prefix), keys.tenantUse(this.prefix), keys.desired(this.prefix, name)];
  }

  async holdOf(name: string, uid: string): Promise<TenantHold | undefined> {
    const json = await this.redis.hget(keys.tenantHolds(this.prefix), holdField(name, uid));
    return json === null ? undefined : parseHold(json);
  }

  /** Every hold; a field that is not `<name> <uid>` with a hold naming a tenant is skipped. */
  async list(): Promise<HeldTenantHold[]> {
    const all = await this.redis.hgetall(keys.tenantHolds(this.prefix));
    const held: HeldTenantHold[] = [];
    for (const [field, json] of Object.entries(all)) {
      const space = field.indexOf(' ');
      const hold = parseHold(json);
      if (space > 0 && hold !== undefined) held.push({ name: field.slice(0, space), uid: field.slice(space + 1), ...hold });
    }
    return held;
  }

  /** Ends name+uid's hold and takes it off its tenant's sums, unless its guard holds; undefined when there was none or the guard kept it. Idempotent. */
  async release(name: string, uid: string, guard: ReleaseGuard = 'none'): Promise<HeldTenantHold | undefined> {
    const [kind, , json = ''] = (await RELEASE_HOLD.run(this.redis, this.scriptKeys(name), [holdField(name, uid), guard, uid])) as string[];
    if (kind !== 'released') return undefined;
    const hold = parseHold(json);
    // A hold naming no tenant was removed all the same: say so with an empty tenant and no sizes.
    return { name, uid, ...(hold ?? { tenant: '', ...NO_USAGE }) };
  }

  /** SETTLE_HOLD: the hold of name+uid on what its VM has after the create of `generation` completed (an in-place change's shrink given back). */
  async settle(name: string, uid: string, generation: number, size: { cores: number; memoryMiB: number; diskGiB: number }): Promise<boolean> {
    return (await SETTLE_HOLD.run(this.redis, this.scriptKeys(name), [holdField(name, uid), uid, generation, size.cores, size.memoryMiB, size.diskGiB])) === 1;
  }

  /** What the tenant holds now (zeros when nothing). */
  usage(tenant: string): Promise<TenantUsage> {
    return readUsage(this.redis, this.prefix, tenant);
  }

  /** Every tenant with a sum recorded, and what it holds. */
  allUsage(): Promise<Map<string, TenantUsage>> {
    return readAllUsage(this.redis, this.prefix);
  }
}
