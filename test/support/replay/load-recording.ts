// Reads a recording (SPEC 33): its index.json, checked field by field, and
// the fixture file of each exchange. A bad recording is a RecordingError
// naming the field and what is wrong (the replay's exit 2).
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { RECORDING_FORMAT, type IndexedExchange, type RecordingIndex } from '../../../src/verify/record/recording-index.js';
import type { Answer } from './compare.js';

export class RecordingError extends Error {}

export interface LoadedRecording {
  dir: string;
  index: RecordingIndex;
  /** The recorded answer of each exchange, in the index's order. */
  answers: Answer[];
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE'];

function fail(field: string, what: string): never {
  throw new RecordingError(`index.json: ${field}: ${what}`);
}

function checkExchange(e: unknown, i: number): IndexedExchange {
  const at = `exchanges[${i}]`;
  if (typeof e !== 'object' || e === null) fail(at, 'must be an object');
  const x = e as Partial<IndexedExchange>;
  if (typeof x.file !== 'string' || x.file === '') fail(`${at}.file`, 'must be a file name');
  if (typeof x.method !== 'string' || !METHODS.includes(x.method)) fail(`${at}.method`, `must be one of ${METHODS.join(', ')}`);
  if (typeof x.path !== 'string' || !x.path.startsWith('/')) fail(`${at}.path`, 'must be a path starting with /');
  for (const key of ['query', 'form'] as const) if (x[key] !== undefined && (typeof x[key] !== 'object' || x[key] === null)) fail(`${at}.${key}`, 'must be an object of parameters');
  if (x.upload !== undefined && (typeof x.upload.filename !== 'string' || !Number.isInteger(x.upload.size))) fail(`${at}.upload`, 'must be {filename, size}');
  if (x.setup !== undefined && !Array.isArray(x.setup)) fail(`${at}.setup`, 'must be a list of /_sim/ calls');
  for (const [j, call] of (x.setup ?? []).entries()) if (typeof call.path !== 'string' || !call.path.startsWith('/_sim/')) fail(`${at}.setup[${j}].path`, 'must start with /_sim/');
  return x as IndexedExchange;
}

function checkIndex(raw: unknown): RecordingIndex {
  if (typeof raw !== 'object' || raw === null) fail('(top)', 'must be a JSON object');
  const index = raw as Partial<RecordingIndex>;
  if (index.format !== RECORDING_FORMAT) fail('format', `must be "${RECORDING_FORMAT}", found ${JSON.stringify(index.format)}`);
  const inventory = index.inventory;
  if (typeof inventory !== 'object' || inventory === null) fail('inventory', 'missing');
  if (!Array.isArray(inventory.nodes) || inventory.nodes.length === 0) fail('inventory.nodes', 'must list at least one node');
  for (const key of ['storages', 'templates', 'bridges'] as const) if (!Array.isArray(inventory[key])) fail(`inventory.${key}`, 'must be a list');
  if (!Array.isArray(index.exchanges)) fail('exchanges', 'must be a list');
  index.exchanges.forEach(checkExchange);
  return index as RecordingIndex;
}

function loadAnswer(dir: string, e: IndexedExchange, i: number): Answer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(join(dir, e.file), 'utf8'));
  } catch (err) {
    fail(`exchanges[${i}].file`, `${e.file} cannot be read as JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const a = parsed as Partial<Answer>;
  if (typeof a.status !== 'number' || typeof a.reason !== 'string' || typeof a.body !== 'string') fail(`exchanges[${i}].file`, `${e.file} is not {status, reason, headers, body}`);
  return { status: a.status, reason: a.reason, body: a.body };
}

/** DIR's index and answers; a RecordingError for no DIR, no index.json, or a bad one. */
export function loadRecording(dir: string): LoadedRecording {
  const full = resolve(dir);
  let text: string;
  try {
    text = readFileSync(join(full, 'index.json'), 'utf8');
  } catch {
    throw new RecordingError(`${dir}: no index.json there (give a directory written by verify --record)`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new RecordingError(`index.json: not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const index = checkIndex(raw);
  return { dir: full, index, answers: index.exchanges.map((e, i) => loadAnswer(dirname(join(full, 'index.json')), e, i)) };
}
