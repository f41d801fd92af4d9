// A replayed answer against the recorded one (SPEC 33): the same status and
// reason, and a body of the same shape: the same keys and types, values
// equal where they are not ids, times or addresses (masks.ts). Lists whose
// entries have an id are matched on it, so a real host's foreign VMs that
// the replay's simulator does not have are no difference.
import { ENTRY_IDS, VOLATILE_KEYS, masked } from './masks.js';

export interface Answer {
  status: number;
  reason: string;
  body: string;
}

export interface CompareContext {
  /** Recorded UPID to the one the replay got in its place. */
  upids: Map<string, string>;
  /** Ids the run is about (the inventory's, and every VMID, storage, volume, file and node the requests name): an entry with one must be on both sides. */
  knownIds: Set<string>;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function kind(value: Json): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

const shown = (value: Json): string => {
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};

function isEntry(value: Json): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The first id field every entry of both lists has, unique within each list (a task's `id` is its VMID, its `upid` is unique). */
function idField(recorded: Json[], replayed: Json[]): string | undefined {
  const all = [...recorded, ...replayed];
  if (all.length === 0 || !all.every(isEntry)) return undefined;
  const unique = (list: Json[], key: string): boolean => new Set(list.map((e) => idText(e, key))).size === list.length;
  return ENTRY_IDS.find((key) => all.every((entry) => isEntry(entry) && entry[key] !== undefined && entry[key] !== null) && unique(recorded, key) && unique(replayed, key));
}

/** An entry's id as text (`qemu/100`, `100`). */
function idText(entry: Json, field: string): string {
  const value = isEntry(entry) ? entry[field] : undefined;
  return typeof value === 'string' || typeof value === 'number' ? String(value) : JSON.stringify(value ?? '');
}

function isKnown(id: string, ctx: CompareContext): boolean {
  // An empty id names nothing (an upload's task has `id: ""`), though every path's leading '/' puts '' among the known.
  if (id === '') return false;
  const last = id.split('/').pop() ?? id;
  return ctx.knownIds.has(id) || ctx.knownIds.has(last) || ctx.upids.has(id) || [...ctx.upids.values()].includes(id);
}

function compareById(at: string, field: string, recorded: Json[], replayed: Json[], ctx: CompareContext, out: string[]): void {
  const idOf = (entry: Json): string => idText(entry, field);
  const byId = new Map(replayed.map((entry) => [idOf(entry), entry]));
  const matched = new Set<string>();
  for (const entry of recorded) {
    const id = ctx.upids.get(idOf(entry)) ?? idOf(entry);
    const other = byId.get(id);
    if (other !== undefined) {
      matched.add(id);
      compareValue(`${at}[${field}=${id}]`, entry, other, ctx, out);
    } else if (isKnown(id, ctx)) out.push(`${at}: entry ${field}=${id} missing`);
  }
  for (const [id] of byId) if (!matched.has(id) && isKnown(id, ctx)) out.push(`${at}: entry ${field}=${id} not recorded`);
}

function compareList(at: string, recorded: Json[], replayed: Json[], ctx: CompareContext, out: string[]): void {
  const field = idField(recorded, replayed);
  if (field !== undefined) return compareById(at, field, recorded, replayed, ctx, out);
  if (recorded.length !== replayed.length) out.push(`${at}: recorded ${recorded.length} entries, replayed ${replayed.length}`);
  for (let i = 0; i < Math.min(recorded.length, replayed.length); i++) compareValue(`${at}[${i}]`, recorded[i] as Json, replayed[i] as Json, ctx, out);
}

function compareObject(at: string, recorded: { [key: string]: Json }, replayed: { [key: string]: Json }, ctx: CompareContext, out: string[]): void {
  for (const key of Object.keys(recorded)) {
    if (!(key in replayed)) out.push(`${at}: key "${key}" missing`);
    else if (VOLATILE_KEYS.has(key)) {
      const [a, b] = [kind(recorded[key] as Json), kind(replayed[key] as Json)];
      if (a !== b) out.push(`${at}.${key}: recorded ${a}, replayed ${b}`);
    } else compareValue(`${at}.${key}`, recorded[key] as Json, replayed[key] as Json, ctx, out);
  }
  for (const key of Object.keys(replayed)) if (!(key in recorded)) out.push(`${at}: key "${key}" not recorded`);
}

function compareValue(at: string, recorded: Json, replayed: Json, ctx: CompareContext, out: string[]): void {
  const [a, b] = [kind(recorded), kind(replayed)];
  if (a !== b) {
    out.push(`${at}: recorded ${a} ${shown(recorded)}, replayed ${b} ${shown(replayed)}`);
    return;
  }
  if (Array.isArray(recorded)) return compareList(at, recorded, replayed as Json[], ctx, out);
  if (isEntry(recorded)) return compareObject(at, recorded, replayed as { [key: string]: Json }, ctx, out);
  const same = typeof recorded === 'string' ? masked(recorded) === masked(replayed as string) : recorded === replayed;
  if (!same) out.push(`${at}: recorded ${shown(recorded)}, replayed ${shown(replayed)}`);
}

function parsed(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

function compareBody(recorded: string, replayed: string, ctx: CompareContext, out: string[]): void {
  const [a, b] = [parsed(recorded), parsed(replayed)];
  if (a === undefined || b === undefined) {
    if (masked(recorded) !== masked(replayed)) out.push(`body: recorded ${JSON.stringify(recorded.slice(0, 80))}, replayed ${JSON.stringify(replayed.slice(0, 80))}`);
    return;
  }
  compareValue('body', a, b, ctx, out);
}

/** Every difference between the recorded and the replayed answer, in words; none when they agree. */
export function compareAnswers(recorded: Answer, replayed: Answer, ctx: CompareContext): string[] {
  const out: string[] = [];
  if (recorded.status !== replayed.status) out.push(`status: recorded ${recorded.status}, replayed ${replayed.status}`);
  // A recorded status 0 (no answer) has the client library's error as its reason: not comparable.
  if (recorded.status !== 0 && masked(recorded.reason) !== masked(replayed.reason)) out.push(`reason: recorded ${JSON.stringify(recorded.reason)}, replayed ${JSON.stringify(replayed.reason)}`);
  compareBody(recorded.body, replayed.body, ctx, out);
  return out;
}

/** Each UPID the recorded answer gave, paired with the one the replay got in its place (the same place in the body). */
export function upidPairs(recorded: string, replayed: string): [string, string][] {
  const [a, b] = [parsed(recorded), parsed(replayed)];
  const pairs: [string, string][] = [];
  const walk = (x: Json | undefined, y: Json | undefined): void => {
    if (typeof x === 'string' && typeof y === 'string' && x.startsWith('UPID:') && y.startsWith('UPID:')) pairs.push([x, y]);
    else if (isEntry(x ?? null) && isEntry(y ?? null)) for (const key of Object.keys(x as object)) walk((x as Record<string, Json>)[key], (y as Record<string, Json>)[key]);
  };
  walk(a, b);
  return pairs;
}
