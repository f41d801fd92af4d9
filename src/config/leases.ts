// The leases' config (SPEC 31) beyond each key's own format: the bounds
// that tie the keys together, and the ceiling "no bound" stands for.
import type { LeaseConfig } from './types.js';

/**
 * The longest lease when leases.maxSeconds is 0 ("no bound"): 10 years. A
 * finite number keeps an expiry a date Redis, BullMQ and the OpenAPI
 * document can all hold.
 */
export const LEASE_CEILING_SECONDS = 10 * 365 * 24 * 3600;

/** The longest ttl a create or a renewal may ask for, from now. */
export function leaseMaxSeconds(leases: Pick<LeaseConfig, 'maxSeconds'>): number {
  return leases.maxSeconds === 0 ? LEASE_CEILING_SECONDS : Math.min(leases.maxSeconds, LEASE_CEILING_SECONDS);
}

/** Each problem names its key; empty when the keys agree. */
export function leaseProblems(leases: LeaseConfig): string[] {
  const max = leaseMaxSeconds(leases);
  const problems: string[] = [];
  if (leases.maxSeconds > LEASE_CEILING_SECONDS) problems.push(`leases.maxSeconds (${leases.maxSeconds}) is above ${LEASE_CEILING_SECONDS} (10 years); use 0 for no bound`);
  if (leases.defaultSeconds > max) problems.push(`leases.defaultSeconds (${leases.defaultSeconds}) is above leases.maxSeconds (${max}); a create without ttlSeconds would be refused`);
  if (leases.warnSeconds > max) problems.push(`leases.warnSeconds (${leases.warnSeconds}) is above leases.maxSeconds (${max}); no lease could be warned of`);
  return problems;
}
