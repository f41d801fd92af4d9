// The desired-state registry of SPEC 2: per name, `present` (uid, spec,
// generation) or `absent` (a tombstone kept registry.tombstoneSeconds),
// with one generation counter per name. Producers record here first,
// then add the job carrying the generation; workers compare.
import type { RedisClient } from '../redis-script.js';
import type { DesiredHead, DesiredRecord, LastKnown, LastKnownWrite, Lease, RecordedFailure } from '../desired-state.js';
import { redactSecrets } from '../secrets/redact.js';
import { intentJobIdPrefix } from '../job-table/job-ids.js';
import { keys } from '../redis-keys.js';
import { RENEW_LEASE } from './lease-scripts.js';
import { NameNotFoundError, NameTakenError, QuotaExceededError, RateLimitedError } from './producer-errors.js';
import { RECORD_ABSENT, RECORD_FAILURE, RECORD_LAST_KNOWN, RECORD_PRESENT } from './registry-scripts.js';
import { EXPIRE_LEASE, MARK_WARNED } from './lease-expiry-scripts.js';
import { VmIndex } from './vm-index.js';
import { ownerOf } from '../tenants/types.js';
import { clusterOfRecord } from './record-cluster.js';
import { allocationArgs } from '../addresses/pool-args.js';
import { poolExhausted } from './address-door.js';
import type { AddressLease } from '../addresses/types.js';
import type { NetworkPoolConfig } from '../config/types.js';
import type { PoolClaim } from '../pools/types.js';
import type { TenantQuotas } from '../tenants/types.js';
import type { RegistryPageQuery } from './vm-listing.js';

/** The head from its three hash fields (HMGET state uid generation); undefined when there is no record. */
export function headFrom(name: string, state: unknown, uid: unknown, generation: unknown): DesiredHead | undefined {
  if (state !== 'present' && state !== 'absent') return undefined;
  const head: DesiredHead = { name, state, generation: Number(generation ?? 0) };
  if (typeof uid === 'string') head.uid = uid;
  return head;
}

/** What a job saw comes from Proxmox, so it is redacted like a job result. */
export function lastKnownArgs(write: LastKnownWrite): [string, string] {
  return [redactSecrets(JSON.stringify(write.lastKnown)), write.ifState ?? ''];
}

/** What an accepted create did to the name's lease (SPEC 31): set or moved, kept as it was (a repeat), ended (ttl 0), or none before and after. */
export type LeaseChange = 'set' | 'kept' | 'clear' | 'none';

/** The name's lease after an accepted create, and what the create did to it; the address lease its uid holds (SPEC 29); the warm pool's member it claimed (SPEC 30). */
interface LeaseAfter {
  lease: Lease | undefined;
  leaseChange: LeaseChange;
  address: AddressLease | undefined;
  /** A fresh create's claim, or a repeat's of the record's generation; undefined: the cold way. */
  claim: PoolClaim | undefined;
  /** A fresh create that tried to claim (its shape a warm pool's) and found no idle member: a miss (SPEC 30). */
  claimMissed: boolean;
  /** The name's owner after the write (SPEC 34); absent: none recorded (a record from before tenants, a pool member's). */
  tenant?: string;
}

export type PresentOutcome =
  | ({ kind: 'recorded' | 'existing'; generation: number; jobId: string; uid: string } & LeaseAfter)
  /** Only fields a present VM takes in place differ: a new generation of the present uid, with the new spec. */
  | ({ kind: 'updated'; generation: number; jobId: string; uid: string; changedFields: string[] } & LeaseAfter)
  | {
      kind: 'conflict';
      existingUid: string;
      /** The caller gave another uid than the present one. */
      uidDiffers: boolean;
      /** Spec fields whose values differ from the present spec's. */
      differingFields: string[];
    };

export interface RecordPresentOptions {
  /** false: the caller gave no uid, so a present name's uid is taken (SPEC 2). Default true. */
  uidGiven?: boolean;
  /** Spec fields that must equal the present spec's, else a conflict (SPEC 2). Default none. */
  compare?: readonly string[];
  /** What a compared field absent from a spec means (SPEC 27: no image is the default image). Default none. */
  absentMeans?: Readonly<Record<string, unknown>>;
  /** Compared fields a present VM takes in place: `any` new value, or only a larger one (`grow`). Default none. */
  inPlace?: Readonly<Record<string, InPlaceChange>>;
  /** The create's lease terms (SPEC 31) and the expiry they give from now; default none (ttl 0). */
  lease?: LeaseTerms;
  /** The address pool of the create's network (SPEC 29): a write of the record takes a lease from it unless the uid holds one. Default none. */
  pool?: NetworkPoolConfig;
  /** The warm pool whose idle member a fresh record claims (SPEC 30), and its shape's current fingerprint. Default none: the cold way. */
  claim?: ClaimFrom;
  /** The caller's tenant (SPEC 34): the owner of a fresh record, whose quotas are checked and hold taken. Default none: the service's own create. */
  tenant?: TenantAdmission;
}

/** What the accept's script needs of a caller's tenant (SPEC 34): its name, whether it is admin, its quotas and the create's size. */
export interface TenantAdmission {
  name: string;
  admin: boolean;
  quotas: TenantQuotas;
  size: { cores: number; memoryMiB: number; diskGiB: number };
}

/** Where a create claims from (SPEC 30): the pool's name and its shape's fingerprint (src/pools/fingerprint.ts). */
export interface ClaimFrom {
  pool: string;
  fingerprint: string;
}

/** A create's lease (SPEC 31): ttlSeconds 0 is none; expiresAt is the accept time plus the ttl. */
export interface LeaseTerms {
  ttlSeconds: number;
  onExpiry: Lease['onExpiry'];
  expiresAt: Date;
}

/** What a renewal (SPEC 31) did: renewed (the new lease, of the name's generation), refused as earlier than the present expiry or as a lease whose expiry stopped the VM, or no present name. */
export type RenewOutcome = { kind: 'renewed'; lease: Lease; generation: number } | { kind: 'earlier'; expiresAt: string } | { kind: 'expired'; expiresAt: string } | { kind: 'absent' };

/** How a spec field may change on a present VM (SPEC 2). */
export type InPlaceChange = 'any' | 'grow';

/**
 * What a lease's expiry found (SPEC 31): its onExpiry intent recorded now
 * or before (then its job is made sure of), or nothing to do: the name is
 * gone or has no lease, the lease was renewed (another version), or it is
 * not due yet.
 */
export type ExpiryOutcome =
  | { kind: 'recorded' | 'existing'; action: 'delete' | 'stop'; generation: number; jobId: string; uid: string; expiresAt: string; tenant?: string; cluster?: string }
  | { kind: 'not-due'; dueInMs: number }
  | { kind: 'gone' | 'renewed' };

export type AbsentOutcome =
  | { kind: 'recorded'; generation: number; jobId: string; endedLease: boolean; tenant?: string; cluster?: string }
  | { kind: 'existing'; generation: number; jobId: string; tenant?: string; cluster?: string }
  | { kind: 'foreign'; generation: number; tenant?: string };

/** One page of the registry in name order; `more` when a name after the last one passes the filters too. */
export interface RegistryPage {
  records: DesiredRecord[];
  more: boolean;
}

function passes(record: DesiredRecord, query: RegistryPageQuery): boolean {
  const expiring = query.expiringBefore === undefined || (record.lease !== undefined && Date.parse(record.lease.expiresAt) < query.expiringBefore);
  const owned = query.tenant === undefined || ownerOf(record) === query.tenant;
  const inCluster = query.cluster === undefined || clusterOfRecord(record, query.firstCluster ?? query.cluster) === query.cluster;
  return owned && expiring && inCluster && (query.state === undefined || record.state === query.state) && (query.node === undefined || record.lastKnown?.node === query.node);
}

function parseJson<T>(text: string | undefined): T | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

export class DesiredStateRegistry {
  private readonly index: VmIndex;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly tombstoneSeconds: number,
  ) {
    this.index = new VmIndex(redis, prefix);
  }

  private scriptKeys(name: string): [string, string, string, string] {
    return [keys.desired(this.prefix, name), keys.generations(this.prefix), keys.desiredIndex(this.prefix), keys.leases(this.prefix)];
  }

  /** RECORD_PRESENT's keys: the record's, the address leases, the address pool's when the create is on one (SPEC 29), the warm pool's when it may claim (SPEC 30). */
  private presentKeys(name: string, pool: NetworkPoolConfig | undefined, claim: ClaimFrom | undefined): string[] {
    const own = [...this.scriptKeys(name), keys.addressLeases(this.prefix), keys.tenantHolds(this.prefix), keys.tenantUse(this.prefix), keys.tenantRate(this.prefix)];
    const network = pool === undefined ? [] : [keys.addressHeld(this.prefix, pool.name), keys.addressCooling(this.prefix, pool.name), keys.addressCursor(this.prefix, pool.name)];
    const warm = claim === undefined ? [] : [keys.poolIdle(this.prefix, claim.pool), keys.poolMembers(this.prefix, claim.pool), keys.poolClaims(this.prefix, claim.pool)];
    return [...own, ...network, ...warm];
  }

  /**
   * Throws PoolExhaustedError, having written nothing, when the create's pool has no free address (SPEC 29);
   * with a tenant (SPEC 34), NameTakenError, QuotaExceededError or RateLimitedError, having written nothing.
   */
  async recordPresent(name: string, uid: string, spec: Record<string, unknown>, options: RecordPresentOptions = {}): Promise<PresentOutcome> {
    const compared = (options.compare ?? []).map((field) => {
      const change = options.inPlace?.[field];
      return change === undefined ? field : `${field}:${change}`;
    });
    const { ttlSeconds = 0, onExpiry = 'delete', expiresAt = new Date() } = options.lease ?? {};
    const terms = JSON.stringify({ ttlSeconds, onExpiry });
    const now = new Date().toISOString();
    const pool = options.pool === undefined ? undefined : allocationArgs(options.pool, now);
    const args = [name, uid, JSON.stringify(spec), now, options.uidGiven === false ? '0' : '1', intentJobIdPrefix('create', name), JSON.stringify(options.absentMeans ?? {}), terms, expiresAt.toISOString(), expiresAt.getTime(), pool?.pool ?? '', pool?.head ?? '', options.claim === undefined ? '' : JSON.stringify({ ...options.claim, at: Date.parse(now) }), options.tenant === undefined ? '' : JSON.stringify(options.tenant), ...compared];
    const reply = (await RECORD_PRESENT.run(this.redis, this.presentKeys(name, options.pool, options.claim), args)) as string[];
    const [kind, leaseJson = '', change = 'none', addressJson = '', claimJson = '', ...tail] = reply;
    if (kind === 'exhausted') throw poolExhausted(name, options.pool);
    if (kind === 'conflict') {
      const [existingUid = '', uidDiffers = '', ...differing] = tail;
      return { kind, existingUid, uidDiffers: uidDiffers === '1', differingFields: differing };
    }
    // SPEC 34: nothing was written.
    const tenant = options.tenant?.name ?? '';
    if (kind === 'taken') throw new NameTakenError(name);
    if (kind === 'quota') throw new QuotaExceededError(name, tenant, leaseJson, Number(change), Number(addressJson), Number(claimJson));
    if (kind === 'rate') throw new RateLimitedError(name, tenant, Number(change), Number(leaseJson));
    const after: LeaseAfter = {
      lease: parseJson<Lease>(leaseJson === '' ? undefined : leaseJson),
      leaseChange: change as LeaseChange,
      address: parseJson<AddressLease>(addressJson === '' ? undefined : addressJson),
      claim: parseJson<PoolClaim>(claimJson === '' || claimJson === 'miss' ? undefined : claimJson),
      claimMissed: claimJson === 'miss',
    };
    const [owner = '', a = '', b = '', c = '', ...rest] = tail;
    const owned = owner === '' ? {} : { tenant: owner };
    if (kind === 'updated') return { kind, generation: Number(a), jobId: b, uid: c, changedFields: rest, ...owned, ...after };
    return { kind: kind === 'existing' ? 'existing' : 'recorded', generation: Number(a), jobId: b, uid: c, ...owned, ...after };
  }

  /**
   * Moves a present name's lease to `expiresAt` (SPEC 31), a new version
   * with no warning sent yet; one earlier than the present expiry only
   * with `shorten`. A name with no lease gets one, of its create's
   * onExpiry or else `onExpiry`.
   */
  async renewLease(name: string, expiresAt: Date, shorten: boolean, onExpiry: Lease['onExpiry']): Promise<RenewOutcome> {
    const args = [name, expiresAt.toISOString(), expiresAt.getTime(), shorten ? '1' : '0', onExpiry];
    const [kind, a = '', b = ''] = (await RENEW_LEASE.run(this.redis, [keys.desired(this.prefix, name), keys.leases(this.prefix)], args)) as string[];
    if (kind === 'earlier' || kind === 'expired') return { kind, expiresAt: a };
    const lease = kind === 'renewed' ? parseJson<Lease>(a) : undefined;
    return lease === undefined ? { kind: 'absent' } : { kind: 'renewed', lease, generation: Number(b) };
  }

  /** A Permanent failure of the name's create at `generation`; written only while that generation is present. */
  async recordFailure(name: string, failure: RecordedFailure): Promise<boolean> {
    return (await RECORD_FAILURE.run(this.redis, [keys.desired(this.prefix, name)], [failure.generation, JSON.stringify(failure)])) === 1;
  }

  /** `tenant` (SPEC 34): a caller that is not admin records only a name it owns, else a NameNotFoundError, nothing written; none: any name. */
  async recordAbsent(name: string, uid: string | undefined, tenant?: Pick<TenantAdmission, 'name' | 'admin'>): Promise<AbsentOutcome> {
    const caller = tenant === undefined ? '' : JSON.stringify({ name: tenant.name, admin: tenant.admin });
    const reply = (await RECORD_ABSENT.run(this.redis, this.scriptKeys(name), [name, uid ?? '', new Date().toISOString(), this.tombstoneSeconds, intentJobIdPrefix('delete', name), caller])) as string[];
    const [kind, a = '', b = '', c = '', owner = '', cluster = ''] = reply;
    if (kind === 'notfound') throw new NameNotFoundError(name);
    const owned = owner === '' ? {} : { tenant: owner };
    if (kind === 'foreign') return { kind, generation: Number(a), ...owned };
    // SPEC 32: the cluster the name's VM is in (the tombstone's), for its delete; none in the one-cluster form.
    const where = cluster === '' ? {} : { cluster };
    if (kind === 'existing') return { kind, generation: Number(a), jobId: b, ...owned, ...where };
    return { kind: 'recorded', generation: Number(a), jobId: b, endedLease: c === '1', ...owned, ...where };
  }

  /**
   * A lease's expiry (SPEC 31), in one script: when the name is present
   * and its lease is this version and due at `now`, its onExpiry intent is
   * recorded as a caller's would be (a delete's tombstone, or a stop's new
   * generation, SPEC 2), so any later intent supersedes it; a renewal
   * that came first (a newer version, a later expiresAt) wins.
   */
  async expireLease(name: string, version: number, now: Date): Promise<ExpiryOutcome> {
    const args = [name, version, now.getTime(), now.toISOString(), this.tombstoneSeconds, intentJobIdPrefix('delete', name), intentJobIdPrefix('stop', name)];
    const [kind, action = '', generation = '', jobId = '', uid = '', expiresAt = '', tenant = '', cluster = ''] = (await EXPIRE_LEASE.run(this.redis, [...this.scriptKeys(name), keys.leaseTimers(this.prefix)], args)) as string[];
    if (kind === 'not-due') return { kind, dueInMs: Number(action) };
    if (kind !== 'recorded' && kind !== 'existing') return { kind: kind === 'renewed' ? kind : 'gone' };
    return { kind, action: action === 'stop' ? 'stop' : 'delete', generation: Number(generation), jobId, uid, expiresAt, ...(tenant === '' ? {} : { tenant }), ...(cluster === '' ? {} : { cluster }) };
  }

  /** Marks the lease version warned (SPEC 31: vm.expiring once per version); false when it was already, or the name has no such lease. */
  async markWarned(name: string, version: number, now: Date): Promise<boolean> {
    return (await MARK_WARNED.run(this.redis, [keys.desired(this.prefix, name)], [version, now.toISOString()])) === 1;
  }

  /**
   * What a job last saw of the name's VM, written only into an existing
   * record, and with `ifState` only while the name is desired so. Locked
   * jobs write it with their lock's release instead (NameLocks.releaseWriting).
   */
  async recordLastKnown(name: string, lastKnown: LastKnown, ifState?: DesiredRecord['state']): Promise<boolean> {
    const write: LastKnownWrite = ifState === undefined ? { lastKnown } : { lastKnown, ifState };
    return (await RECORD_LAST_KNOWN.run(this.redis, [keys.desired(this.prefix, name)], lastKnownArgs(write))) === 1;
  }

  async get(name: string): Promise<DesiredRecord | undefined> {
    const fields = await this.redis.hgetall(keys.desired(this.prefix, name));
    return toRecord(name, fields);
  }

  /** Every name with a record; names whose tombstone expired are dropped from the set of names and the listing's index. */
  async list(): Promise<DesiredRecord[]> {
    const names = (await this.redis.smembers(keys.desiredIndex(this.prefix))).sort();
    const records = await Promise.all(names.map((name) => this.get(name)));
    const gone = names.filter((_, i) => records[i] === undefined);
    if (gone.length > 0) await this.index.forgetGone(gone);
    return records.filter((r): r is DesiredRecord => r !== undefined);
  }

  /**
   * The names after `query.after` in name order that pass the filters, at
   * most `query.limit` (SPEC 27). The names come from the listing's index
   * (vm-index.ts), a sorted set per filter, so a page reads about `limit`
   * entries and records whatever the registry holds; each record is
   * checked again as it may have changed since the index was read.
   */
  async page(query: RegistryPageQuery): Promise<RegistryPage> {
    if (query.expiringBefore !== undefined) return this.expiringPage(query, query.expiringBefore);
    const wanted = query.limit + 1;
    const found: DesiredRecord[] = [];
    let after = query.after;
    for (;;) {
      const scan = await this.index.scan(query, after, wanted - found.length);
      const records = await Promise.all(scan.names.map((name) => this.get(name)));
      for (const record of records) if (record !== undefined && passes(record, query)) found.push(record);
      if (found.length >= wanted || scan.done || scan.last === undefined) break;
      after = scan.last;
    }
    return { records: found.slice(0, query.limit), more: found.length > query.limit };
  }

  /**
   * A page of the names whose lease ends before `before` (SPEC 31), from
   * the leases' index (keys.leases): it reads the leases ending by then,
   * not the whole registry, then pages them in name order like the others.
   */
  private async expiringPage(query: RegistryPageQuery, before: number): Promise<RegistryPage> {
    const names = (await this.redis.zrangebyscore(keys.leases(this.prefix), '-inf', `(${before}`)).filter((name) => query.after === undefined || name > query.after).sort();
    const wanted = query.limit + 1;
    const found: DesiredRecord[] = [];
    for (let i = 0; i < names.length && found.length < wanted; i += wanted) {
      const records = await Promise.all(names.slice(i, i + wanted).map((name) => this.get(name)));
      for (const record of records) if (record !== undefined && passes(record, query)) found.push(record);
    }
    return { records: found.slice(0, query.limit), more: found.length > query.limit };
  }
}

function toRecord(name: string, fields: Record<string, string>): DesiredRecord | undefined {
  const state = fields.state;
  if (state !== 'present' && state !== 'absent') return undefined;
  const record: DesiredRecord = { name, state, generation: Number(fields.generation ?? 0), updatedAt: fields.updatedAt ?? '' };
  if (fields.uid !== undefined) record.uid = fields.uid;
  if (fields.jobId !== undefined) record.jobId = fields.jobId;
  const spec = parseJson<Record<string, unknown>>(fields.spec);
  if (spec) record.spec = spec;
  const lastKnown = parseJson<LastKnown>(fields.lastKnown);
  if (lastKnown) record.lastKnown = lastKnown;
  const retiredUids = parseJson<string[]>(fields.retiredUids);
  if (retiredUids) record.retiredUids = retiredUids;
  const failed = parseJson<RecordedFailure>(fields.failed);
  if (failed) record.failed = failed;
  if (fields.changing !== undefined) record.changing = Number(fields.changing);
  const lease = parseJson<Lease>(fields.lease);
  if (lease) record.lease = lease;
  const address = parseJson<AddressLease>(fields.address);
  if (address) record.address = address;
  if (fields.stopped !== undefined) record.stopped = Number(fields.stopped);
  const claim = parseJson<PoolClaim>(fields.claim);
  if (claim) record.claim = claim;
  if (fields.claimedBy !== undefined) record.claimedBy = fields.claimedBy;
  if (fields.tenant !== undefined) record.tenant = fields.tenant;
  if (fields.cluster !== undefined) record.cluster = fields.cluster;
  return record;
}
