// Constant-time checks of presented secrets (bearer tokens, Bull Board
// passwords). Both sides are hashed first, so timingSafeEqual always
// compares two 32-byte digests whatever the lengths, and every stored
// secret is compared, so the time says nothing about which one matched.
import { createHash, timingSafeEqual } from 'node:crypto';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Holds the digests of a set of secrets and answers whether a candidate is one of them. */
export class SecretSet {
  private readonly digests: Buffer[];

  constructor(secrets: readonly string[]) {
    this.digests = secrets.map(digest);
  }

  get size(): number {
    return this.digests.length;
  }

  has(candidate: string): boolean {
    return this.indexOf(candidate) !== -1;
  }

  /** Which stored secret the candidate is (its index as given), -1 when none; every one is compared all the same. */
  indexOf(candidate: string): number {
    const presented = digest(candidate);
    let found = -1;
    this.digests.forEach((stored, index) => {
      // No short-circuit: every stored digest is compared, and the first match kept.
      const equal = timingSafeEqual(presented, stored);
      found = found === -1 && equal ? index : found;
    });
    return found;
  }
}
