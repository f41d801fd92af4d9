// Errors the producer library throws (SPEC 1, SPEC 2). No worker code.
import type { FieldError } from '../../jobs/fields.js';

/** Bad input: every failing field with its reason; nothing was enqueued. */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  constructor(readonly fields: FieldError[]) {
    super(`invalid job data: ${fields.map((f) => `${f.field} ${f.message}`).join('; ')}`);
  }
}

/** A create for a name that another uid holds (HTTP 409): never a second VM. */
export class ConflictError extends Error {
  override readonly name = 'ConflictError';
  constructor(
    readonly vmName: string,
    readonly existingUid: string,
  ) {
    super(`name ${vmName} is already held by another uid`);
  }
}
