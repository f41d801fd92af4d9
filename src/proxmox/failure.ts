// Classified errors that also say which health reason they stand for
// (SPEC 19), so the health check need not read messages.
import { PermanentError, TransientError } from '../errors.js';
import type { ErrorDetails } from '../errors.js';

export type FailureKind =
  | 'Unreachable'
  | 'CertificateInvalid'
  | 'CredentialsUnavailable'
  | 'CredentialsRejected'
  | 'PermissionDenied';

export interface KindDetails extends ErrorDetails {
  kind?: FailureKind;
}

export class ProxmoxTransientError extends TransientError {
  readonly kind: FailureKind | undefined;
  constructor(message: string, details: KindDetails = {}) {
    super(message, details);
    this.kind = details.kind;
  }
}

export class ProxmoxPermanentError extends PermanentError {
  readonly kind: FailureKind | undefined;
  constructor(message: string, details: KindDetails = {}) {
    super(message, details);
    this.kind = details.kind;
  }
}

/** The health reason an error stands for, looking through `cause`s; undefined when none. */
export function kindOf(err: unknown): FailureKind | undefined {
  for (let current: unknown = err, depth = 0; current instanceof Error && depth < 8; depth++) {
    if (current instanceof ProxmoxTransientError || current instanceof ProxmoxPermanentError) {
      if (current.kind !== undefined) return current.kind;
    }
    current = current.cause;
  }
  return undefined;
}
