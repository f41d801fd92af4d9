// A claim that cannot go on (SPEC 30): the claimed member's VM is gone,
// holds another name and mark than the claim's, the keys do not fit the
// agent's one file write, or another VM carries the claimer's name
// already (the cold way keeps or replaces that one: one name, one VM).
// Nothing was written to Proxmox; the caller forgets the claim and makes
// the VM the cold way. Permanent, so a caller that does not know the class
// fails the job rather than retrying it.
import { ClassifiedError } from '../errors.js';

export type ClaimLostCause = 'gone' | 'not-the-member' | 'keys-too-long' | 'name-held';

export class ClaimLostError extends ClassifiedError {
  override readonly name = 'ClaimLostError';
  readonly errorClass = 'Permanent' as const;
  constructor(
    message: string,
    readonly lost: ClaimLostCause,
    cause?: unknown,
  ) {
    super(message, { reason: message, cause });
  }
}
