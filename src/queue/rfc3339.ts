// The times a caller gives (SPEC 31: a lease's expiresAt, the listing's
// expiringBefore): RFC 3339 date-times with an offset, nothing looser.

/** RFC 3339 date-time, with seconds and an offset (Z or ±hh:mm). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** The time an RFC 3339 text says, or undefined when it is not one. */
export function parseRfc3339(text: unknown): Date | undefined {
  if (typeof text !== 'string' || !RFC3339.test(text)) return undefined;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? undefined : at;
}
