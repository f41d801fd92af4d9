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
    const presented = digest(candidate);
    let found = false;
    for (const stored of this.digests) {
      // No short-circuit: every stored digest is compared.
      found = timingSafeEqual(presented, stored) || found;
    }
    return found;
  }
}
