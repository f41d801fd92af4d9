// SPEC 24: answers and listings never carry a create's `userData` or
// `networkConfig` text (passwords and keys live there), only its size in
// bytes and its HMAC-SHA256 under the deployment's fingerprint key
// (http.fingerprintKeyFile), so a caller can still tell which text a VM
// got and compare two texts, but cannot test guesses of a password inside
// a templated text offline, as it could against a plain hash. Without the
// key (a producer library given none) the summary is the size alone.
// The job in BullMQ and the registry's spec keep the text: the worker and
// the reconciler need it.
import { createHmac } from 'node:crypto';
import { createInputFields } from '../job-table/create.schema.js';
import type { JobFields } from '../job-table/fields.js';

export interface TextSummary {
  bytes: number;
  /** Hex HMAC-SHA256 of the UTF-8 bytes under the fingerprint key; absent without the key. */
  hmacSha256?: string;
}

/** The create's fields whose text answers never show. */
type TextField = 'userData' | 'networkConfig';

/** A type of job data or spec as answers show it: each text field as its summary. */
export type TextsSummarized<T> = { [K in keyof T]: K extends TextField ? TextSummary : T[K] };

/** The free-text fields of the create's table: bounded in bytes and by no pattern (name, uid and bridge have one). */
const TEXT_FIELDS: readonly string[] = Object.entries(createInputFields as JobFields)
  .filter(([, spec]) => spec.rule.kind === 'string' && spec.rule.maxBytes !== undefined && spec.rule.pattern === undefined)
  .map(([field]) => field);

export function textSummary(text: string, fingerprintKey: string | undefined): TextSummary {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (fingerprintKey === undefined) return { bytes };
  return { bytes, hmacSha256: createHmac('sha256', fingerprintKey).update(text, 'utf8').digest('hex') };
}

/** A copy of job data or a spec with each text field replaced by its summary. */
export function withTextsSummarized<T extends object>(data: T, fingerprintKey: string | undefined): TextsSummarized<T> {
  const texts = TEXT_FIELDS.filter((field) => typeof (data as Record<string, unknown>)[field] === 'string');
  if (texts.length === 0) return data as TextsSummarized<T>;
  const copy = { ...data } as Record<string, unknown>;
  for (const field of texts) copy[field] = textSummary(copy[field] as string, fingerprintKey);
  return copy as TextsSummarized<T>;
}
