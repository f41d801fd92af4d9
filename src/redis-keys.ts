// Every Redis key this service writes besides BullMQ's own, under the
// configured prefix (SPEC 7 redis.prefix). BullMQ's keys are
// `<prefix>:<queue>:...`, and no queue is named like these. On the ground
// floor so that src/proxmox/ (the request budget, the daemon slots) reads
// the same table as src/queue/ and the floors above. Keys a script reads
// together carry the hash tag `{prefix}`, so they share one Cluster slot
// (SPEC 25).
export const keys = {
  /** Hash: the desired state of one name (SPEC 2). */
  desired: (prefix: string, name: string): string => `${prefix}:desired:${name}`,
  /** Set: every name the registry has seen (tombstones expire lazily). */
  desiredIndex: (prefix: string): string => `${prefix}:desired-index`,
  /** String: set once the listing's filter index is built; its sorted sets are `<this>:<filter>` (vm-index-scripts.ts). */
  desiredBy: (prefix: string): string => `${prefix}:desired-by`,
  /** Sorted set: name -> its lease's expiry (ms, SPEC 31), kept with the record by the registry's scripts (queue/lease-scripts.ts). */
  leases: (prefix: string): string => `${prefix}:leases`,
  /** Hash: name -> last generation handed out; never expires. */
  generations: (prefix: string): string => `${prefix}:generations`,
  /** String: the per-name lock's token (SPEC 3). */
  nameLock: (prefix: string, name: string): string => `${prefix}:lock:${name}`,
  /** Sorted set: worker id -> when its heartbeat expires (Redis time, ms); read without a SCAN (SPEC 25). */
  workers: (prefix: string): string => `${prefix}:workers`,
  /** Hash: worker id -> its last beat (JSON). */
  workerBeats: (prefix: string): string => `${prefix}:worker-beats`,
  /** String: the last health job's result (SPEC 19). */
  lastHealth: (prefix: string): string => `${prefix}:health:last`,
  /** Hash: `<node>/<volid>` -> the seed record a create wrote before its upload, as JSON (SPEC 5, 26). */
  seeds: (prefix: string): string => `${prefix}:seeds`,
  /** String: sweeps since the seed storages were last listed (the sweep's backstop, SPEC 5). */
  sweepsSinceSeedListing: (prefix: string): string => `${prefix}:sweeps-since-seed-listing`,
  /** String: what a producer reads of the service's config, as JSON (SPEC 6, 27). */
  producerConfig: (prefix: string): string => `${prefix}:producer-config`,
  /** String: written just before each WAIT, so the WAIT covers every write the master had (replica-acks.ts). */
  replicaAckFence: (prefix: string): string => `${prefix}:replica-ack-fence`,
  /** String: the sweep lock's token; at most one sweep at a time (SPEC 5, reconciler/sweep-lock.ts). */
  sweepLock: (prefix: string): string => `${prefix}:reconciler:sweep-lock`,
  /** Hash: name -> id of the job the sweep added for it (SPEC 5, reconciler/queue-adapter.ts). */
  reconcilerJobs: (prefix: string): string => `${prefix}:reconciler:jobs`,
  /** Hash: name -> the job ids of its lease's timers, as JSON (SPEC 31, queue/lease-timer.ts): the ones a newer lease version removes. */
  leaseTimers: (prefix: string): string => `${prefix}:lease-timers`,
  /**
   * Hash: `<name> <uid>` -> its address lease as JSON (SPEC 29, src/addresses/types.ts AddressLease): at most one
   * per name and uid, so a repeat of a create takes the same address; a re-created name (new uid) gets another while
   * the old uid's VM is still being deleted.
   */
  addressLeases: (prefix: string): string => `${prefix}:address-leases`,
  /** Hash: address -> `<name> <uid>` holding it, in one pool (SPEC 29). */
  addressHeld: (prefix: string, pool: string): string => `${prefix}:address-pool:${pool}:held`,
  /** Sorted set: address -> ms (Redis time) from which a freed address may be handed out again (networks[].reuseCooldownSeconds). */
  addressCooling: (prefix: string, pool: string): string => `${prefix}:address-pool:${pool}:cooling`,
  /** String: the offset in the pool's range the next search starts at, so freed addresses go round before reuse. */
  addressCursor: (prefix: string, pool: string): string => `${prefix}:address-pool:${pool}:cursor`,
  /** String with a TTL: a phone-home token's JSON {name, uid, generation} (SPEC 29): deleted when the guest's call is accepted, so good once. */
  readyToken: (prefix: string, token: string): string => `${prefix}:ready-token:${token}`,
  /**
   * String with a TTL: the guest of name and uid phoned home (SPEC 29), its token's JSON {name, uid, generation};
   * written with the token's delete in one script (queue/ready-signals.ts), which derives it from the token's key.
   */
  readySignal: (prefix: string, name: string, uid: string): string => `${prefix}:ready-signal:${name}:${uid}`,
  /**
   * Sorted set: a warm pool's idle members, name -> ms it became idle (SPEC 30); only these can be claimed. The pools'
   * keys are under the prefix like the registry's (its hash tag {prefix} on a Cluster), so the accept's script that
   * claims one and records the claimer runs on one slot.
   */
  poolIdle: (prefix: string, pool: string): string => `${prefix}:pool:${pool}:idle`,
  /** Hash: member name -> its PoolMember JSON (src/pools/types.ts), for every member that exists (creating, idle, claimed). */
  poolMembers: (prefix: string, pool: string): string => `${prefix}:pool:${pool}:members`,
  /** String: the counter a member's name takes its number from (INCR). */
  poolSeq: (prefix: string, pool: string): string => `${prefix}:pool:${pool}:seq`,
  /**
   * Sorted set: a warm pool's demand (SPEC 30), `<claimer> <uid>` -> ms of each create that tried to claim from it,
   * hit or miss, in the last hour; written by the accept's script (RECORD_PRESENT) where the claim is tried.
   */
  poolClaims: (prefix: string, pool: string): string => `${prefix}:pool:${pool}:claims`,
  /** List: a warm pool's last lead times (SPEC 30), ms from a member's entry to its idle, newest first; written by MARK_IDLE. */
  poolLeadTimes: (prefix: string, pool: string): string => `${prefix}:pool:${pool}:lead-times`,
  /** Set: every pool with a member entry, configured or not (a pool taken out of config drains). */
  poolNames: (prefix: string): string => `${prefix}:pools`,
  /**
   * Hash: `<name> <uid>` -> the tenant hold of that create (SPEC 34), JSON {tenant, vms, cores, memoryMiB, diskGiB}:
   * taken by the accept's script (RECORD_PRESENT) with the record, given back when the VM of that name and uid is gone
   * (the delete, a create that failed and left nothing, the sweep), like an address lease.
   */
  tenantHolds: (prefix: string): string => `${prefix}:tenant-holds`,
  /** Hash: `<tenant> <quota>` (vms, cores, memoryMiB, diskGiB) -> the sum of that tenant's holds, kept with them. */
  tenantUse: (prefix: string): string => `${prefix}:tenant-use`,
  /** Hash: tenant -> `<tokens> <ms>`, its creates-per-minute bucket as last refilled (Redis time). */
  tenantRate: (prefix: string): string => `${prefix}:tenant-rate`,
  /** Hash: tenant -> its webhook URL (SPEC 34), published by the web process from the tokens file, read by the workers. */
  tenantWebhooks: (prefix: string): string => `${prefix}:tenant-webhooks`,
  /** Hash: kind -> learned Proxmox duration (SPEC 28); hash-tagged so its script runs on one Cluster slot. */
  learnedTimes: (prefix: string): string => `{${prefix}}:learned-times`,
  /**
   * The request budget's pace and ceiling (SPEC 26, 28, proxmox/budget-script.ts); no scope: proxmox.url's
   * budget, under the keys it always had; a scope: a node's own apiUrl.
   */
  proxmoxBudget: (prefix: string, scope?: string): readonly [pace: string, ceiling: string] => {
    const base = scope === undefined ? `{${prefix}}:proxmox-budget` : `{${prefix}}:proxmox-budget:${scope}`;
    return [`${base}:pace`, `${base}:ceiling`];
  },
  /** Sorted set: one node's pvedaemon slots held by calls in flight (SPEC 28, proxmox/daemon-slot-script.ts). */
  daemonSlots: (prefix: string, node: string): string => `{${prefix}}:proxmox-daemon-slots:${node}`,
};
