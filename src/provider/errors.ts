// The provider's view of SPEC 17: every error leaving the provider is a
// ClassifiedError with an operator-readable reason.
import { ClassifiedError, PermanentError, TransientError } from '../errors.js';
import { classifyError } from '../proxmox/classify.js';

export function classify(err: unknown): ClassifiedError {
  return classifyError(err);
}

/** The signal's abort as a Transient error: the job was cancelled or lost its lock. */
export function cancelled(signal: AbortSignal): TransientError {
  const why: unknown = signal.reason;
  const text = why instanceof Error ? why.message : typeof why === 'string' ? why : 'aborted';
  return new TransientError(`operation cancelled: ${text}`, { cause: why });
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw cancelled(signal);
}

/** Classifies err, but an aborted signal always wins: a cancelled call is reported as cancelled. */
export function classifyCall(err: unknown, signal: AbortSignal): ClassifiedError {
  if (signal.aborted) return cancelled(signal);
  return classify(err);
}

export function permanent(reason: string, cause?: unknown): PermanentError {
  return new PermanentError(reason, { reason, cause });
}

export function transient(reason: string, cause?: unknown): TransientError {
  return new TransientError(reason, { reason, cause });
}
