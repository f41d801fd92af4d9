// A node's task listing in a replay (SPEC 26, 33). Its `since` is whole
// seconds, read from the UPID of the oldest task waited for: the replay
// asks since the start of the task it got in that one's place, and a task
// that started the second before on the host may start in the same second
// here (the simulator runs faster), so the replay's listing may hold a
// task of the run the host's left out. Such a task is dropped from the
// replayed answer before the comparison; any other is compared.
import type { Params } from '../../../src/verify/record/recording-index.js';
import type { Answer } from './compare.js';

/** A UPID's start, epoch seconds (its fifth field, hex). */
export const startOf = (upid: string): number => parseInt(upid.split(':')[4] ?? '', 16);

/** The query with `since` moved to the start of the replayed task standing in for the recorded one it names. */
export function mappedQuery(query: Params | undefined, upids: Map<string, string>): Params | undefined {
  if (query?.since === undefined) return query;
  const since = Number(query.since);
  const starts = [...upids].filter(([recorded]) => startOf(recorded) === since).map(([, replayed]) => startOf(replayed));
  return starts.length === 0 ? query : { ...query, since: Math.min(...starts) };
}

/** The replayed listing less the tasks whose recorded counterparts started before the recorded `since`. */
export function withoutTasksBeforeSince(answer: Answer, recordedQuery: Params | undefined, upids: Map<string, string>): Answer {
  if (recordedQuery?.since === undefined) return answer;
  const since = Number(recordedQuery.since);
  let parsed: { data?: unknown; total?: unknown };
  try {
    parsed = JSON.parse(answer.body) as { data?: unknown; total?: unknown };
  } catch {
    return answer;
  }
  if (!Array.isArray(parsed.data)) return answer;
  const recordedOf = new Map([...upids].map(([recorded, replayed]) => [replayed, recorded]));
  const kept = parsed.data.filter((entry: unknown) => {
    const upid = (entry as { upid?: unknown } | null)?.upid;
    const recorded = typeof upid === 'string' ? recordedOf.get(upid) : undefined;
    return recorded === undefined || startOf(recorded) >= since;
  });
  if (kept.length === parsed.data.length) return answer;
  const total = typeof parsed.total === 'number' ? { total: parsed.total - (parsed.data.length - kept.length) } : {};
  return { ...answer, body: JSON.stringify({ ...parsed, ...total, data: kept }) };
}
