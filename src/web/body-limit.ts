// The largest request body the API reads (SPEC 1, 24), from the field
// table: the size of the largest valid job as JSON, whichever encoder
// wrote it, so every valid create fits and anything larger is refused
// (413) before it is parsed. A string's bound is on its UTF-8 bytes; in
// JSON one byte may take up to six (a control character as \u001f).
import { JOB_NAMES, JOB_TABLE } from '../job-table/schema.js';
import { maxOf, type FieldRule, type JobFields, type JobLimits } from '../job-table/fields.js';

const JSON_BYTES_PER_TEXT_BYTE = 6;
/** Room for the spaces and newline a pretty-printing encoder puts around each value. */
const WHITESPACE_PER_VALUE = 16;

function maxStringBytes(field: string, rule: Extract<FieldRule, { kind: 'string' }>, limits: JobLimits): number {
  if (rule.maxBytes !== undefined) return rule.maxBytes;
  if (rule.oneOf !== undefined) return Math.max(0, ...rule.oneOf(limits).map((value) => Buffer.byteLength(value, 'utf8')));
  throw new Error(`field ${field} has no maxBytes nor oneOf: the body limit cannot be computed`);
}

/** The most bytes one field's value takes in JSON, with its whitespace. */
function maxValueJsonBytes(field: string, rule: FieldRule, limits: JobLimits): number {
  switch (rule.kind) {
    case 'boolean':
      return 'false'.length + WHITESPACE_PER_VALUE;
    case 'object':
      return rule.maxJsonBytes + WHITESPACE_PER_VALUE;
    case 'integer':
      return Math.max(String(rule.min).length, String(maxOf(rule, limits)).length) + WHITESPACE_PER_VALUE;
    case 'string':
      return 2 + JSON_BYTES_PER_TEXT_BYTE * maxStringBytes(field, rule, limits) + WHITESPACE_PER_VALUE;
    case 'strings':
      return 2 + rule.maxItems * (2 + JSON_BYTES_PER_TEXT_BYTE * rule.itemMaxBytes + 1 + WHITESPACE_PER_VALUE) + WHITESPACE_PER_VALUE;
  }
}

/** The most bytes a JSON object of these fields takes: each `"name":value,` and the braces. */
export function maxJsonBodyBytes(fields: JobFields, limits: JobLimits): number {
  let total = 2;
  for (const [field, spec] of Object.entries(fields)) total += Buffer.byteLength(JSON.stringify(field)) + 2 + maxValueJsonBytes(field, spec.rule, limits);
  return total;
}

/** The body limit of the API: the largest of every job's largest body, in whole KiB. */
export function bodyLimitBytes(limits: JobLimits): number {
  const largest = Math.max(...JOB_NAMES.map((job) => maxJsonBodyBytes(JOB_TABLE[job].input, limits)));
  return Math.ceil(largest / 1024) * 1024;
}
