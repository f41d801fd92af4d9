// Replays a recording against the simulator (SPEC 33): sets the simulator
// up with the recording's inventory (replay-sim.ts), sends the recorded
// requests in order over HTTP, and compares each answer with the recorded
// one (compare.ts). A run of consecutive identical GETs is one poll: it is
// repeated until its answer matches the run's last recorded answer, up to
// a deadline, so the host's timing does not matter; so is any other GET
// (a host slower than the simulator had a task finished that still runs
// here, or the other way round). A UPID an earlier
// answer gave is replaced in later paths by the one the replay got.
import { setTimeout as sleep } from 'node:timers/promises';
import type { IndexedExchange } from '../../../src/verify/record/recording-index.js';
import { compareAnswers, upidPairs, type Answer, type CompareContext } from './compare.js';
import type { LoadedRecording } from './load-recording.js';
import { recordedTokenId, simControl, startReplaySim, type ReplaySim } from './replay-sim.js';
import { sendRecorded } from './send.js';
import { mappedQuery, withoutTasksBeforeSince } from './task-listing.js';

export interface ReplayDifference {
  /** `#12 GET /nodes/pve1/qemu/100123/status/current`: the exchange's number in the index (its file's) and its request. */
  request: string;
  what: string;
}

export interface ReplayResult {
  /** Requests of the recording, a poll counted once. */
  requests: number;
  differences: ReplayDifference[];
}

export interface ReplayOptions {
  /** How long a poll is repeated before its last answer's differences count (ms). */
  pollDeadlineMs?: number;
}

const WRONG_TOKEN = 'PVEAPIToken=root@pam!provisioner=00000000-0000-0000-0000-000000000000';
const POLL_PAUSE_MS = 20;
/** 5 s of wall time is 250 s of the replay simulator's (timeScale 0.02): any clone, task or agent wait has ended by then. */
const DEFAULT_DEADLINE_MS = 5_000;

function requestKey(e: IndexedExchange): string {
  return JSON.stringify([e.method, e.path, e.query ?? {}, e.form ?? {}]);
}

/** The index's exchanges as runs: a run of consecutive identical GETs (no set-up between) is one poll. */
export function pollRuns(exchanges: IndexedExchange[]): number[][] {
  const runs: number[][] = [];
  exchanges.forEach((e, i) => {
    const last = runs[runs.length - 1];
    const previous = last === undefined ? undefined : exchanges[last[last.length - 1] as number];
    const same = previous !== undefined && e.method === 'GET' && e.setup === undefined && e.auth === previous.auth && requestKey(e) === requestKey(previous);
    if (same && last !== undefined) last.push(i);
    else runs.push([i]);
  });
  return runs;
}

function knownIds(recording: LoadedRecording): Set<string> {
  const { inventory, exchanges } = recording.index;
  const ids = new Set<string>([
    ...inventory.nodes.map((n) => n.node),
    ...inventory.storages.map((s) => s.storage),
    ...inventory.templates.map((t) => String(t.vmid)),
    ...inventory.bridges.map((b) => b.iface),
  ]);
  for (const e of exchanges) {
    for (const segment of e.path.split('/')) ids.add(decodeURIComponent(segment));
    for (const value of [...Object.values(e.query ?? {}), ...Object.values(e.form ?? {})]) ids.add(String(value));
    if (e.upload !== undefined) ids.add(e.upload.filename);
  }
  // A volume named by its file (`proxy-seeds:iso/seed.iso`).
  for (const s of inventory.storages) for (const e of exchanges) if (e.upload !== undefined) ids.add(`${s.storage}:iso/${e.upload.filename}`);
  return ids;
}

function mappedPath(path: string, upids: Map<string, string>): string {
  let out = path;
  for (const [recorded, replayed] of upids) out = out.split(encodeURIComponent(recorded)).join(encodeURIComponent(replayed)).split(recorded).join(replayed);
  return out;
}

interface Run {
  sim: ReplaySim;
  ctx: CompareContext;
  deadlineMs: number;
}

/** Sends one run (a request, or a poll) and compares its final answer with the run's last recorded one. */
async function replayRun(run: Run, recording: LoadedRecording, indexes: number[]): Promise<string[]> {
  const first = recording.index.exchanges[indexes[0] as number] as IndexedExchange;
  const lastIndex = indexes[indexes.length - 1] as number;
  const expected = recording.answers[lastIndex] as Answer;
  for (const call of first.setup ?? []) await simControl(run.sim.running, call);
  const auth = first.auth === 'none' ? undefined : first.auth === 'wrong' ? WRONG_TOKEN : run.sim.authorization;
  const path = mappedPath(first.path, run.ctx.upids);
  const query = mappedQuery(first.query, run.ctx.upids);
  const sent: IndexedExchange = { ...first, ...(query === undefined ? {} : { query }) };
  // Any GET is asked again until it matches: a task the host had finished may still run here, and the other way round.
  const repeat = first.method === 'GET' || first.poll === true;
  const deadline = Date.now() + run.deadlineMs;
  for (;;) {
    const answer = withoutTasksBeforeSince(await sendRecorded(run.sim.running.url, sent, path, auth), first.query, run.ctx.upids);
    const differences = compareAnswers(expected, answer, run.ctx);
    if (differences.length === 0 || !repeat || Date.now() > deadline) {
      for (const [recorded, replayed] of upidPairs(expected.body, answer.body)) run.ctx.upids.set(recorded, replayed);
      return differences;
    }
    await sleep(POLL_PAUSE_MS);
  }
}

/** Replays the recording against a simulator set up with its inventory; every difference, named by its request. */
export async function replayRecording(recording: LoadedRecording, options: ReplayOptions = {}): Promise<ReplayResult> {
  const sim = await startReplaySim(recording.index, recordedTokenId(recording.answers.map((a) => a.body)));
  const run: Run = { sim, ctx: { upids: new Map(), knownIds: knownIds(recording) }, deadlineMs: options.pollDeadlineMs ?? DEFAULT_DEADLINE_MS };
  const differences: ReplayDifference[] = [];
  const runs = pollRuns(recording.index.exchanges);
  try {
    for (const indexes of runs) {
      const lastIndex = indexes[indexes.length - 1] as number;
      const e = recording.index.exchanges[lastIndex] as IndexedExchange;
      const request = `#${lastIndex + 1} ${e.method} ${e.path}`;
      for (const what of await replayRun(run, recording, indexes)) differences.push({ request, what });
    }
  } finally {
    await sim.close();
  }
  return { requests: runs.length, differences };
}

/** The differences as lines for a person: `#12 GET /nodes/...: status: recorded 500, replayed 200`. */
export function differenceLines(result: ReplayResult): string[] {
  return result.differences.map((d) => `${d.request}: ${d.what}`);
}
