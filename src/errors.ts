// The three classes of SPEC 17, as tiny error classes the job boundary
// asks with instanceof (as BullMQ does with UnrecoverableError).

export type ErrorClass = 'Transient' | 'Permanent' | 'NotFound';

export interface ErrorDetails {
  /** What an operator can do about it, in words (SPEC 4). */
  reason?: string;
  cause?: unknown;
}

export abstract class ClassifiedError extends Error {
  abstract readonly errorClass: ErrorClass;
  readonly reason: string;
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.reason = details.reason ?? message;
  }
}

/** Worth retrying: a lock, a timeout, a 5xx, a dropped connection. */
export class TransientError extends ClassifiedError {
  override readonly name = 'TransientError';
  readonly errorClass = 'Transient' as const;
}

/** Retrying will not help until someone changes something. */
export class PermanentError extends ClassifiedError {
  override readonly name = 'PermanentError';
  readonly errorClass = 'Permanent' as const;
}

/** The thing is not there; for a delete that means done. */
export class NotFoundError extends ClassifiedError {
  override readonly name = 'NotFoundError';
  readonly errorClass = 'NotFound' as const;
}

export function isClassified(err: unknown): err is ClassifiedError {
  return err instanceof ClassifiedError;
}

/** The class of any error; an unclassified error is Transient. */
export function classOf(err: unknown): ErrorClass {
  return isClassified(err) ? err.errorClass : 'Transient';
}
