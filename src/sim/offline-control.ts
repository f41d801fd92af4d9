// POST /_sim/offline (SPEC 32): the simulated cluster goes offline for
// `seconds` of wall time, then listens again on the same ports. It answers
// first: the connection it answers on is one of those the outage ends.
import type { ServerResponse } from 'node:http';
import { sendJson } from './http-io.js';
import type { Simulator } from './simulator.js';

/** A day: an outage longer than that is a typo. */
const MAX_OFFLINE_SECONDS = 86_400;

export function offlineProblems(body: unknown): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return ['the body must be a JSON object: {"seconds": N}'];
  const { seconds, ...rest } = body as { seconds?: unknown };
  const problems = Object.keys(rest).map((key) => `${key}: unknown field; the only one is seconds`);
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_OFFLINE_SECONDS) {
    problems.push(`seconds: must be a number above 0 and at most ${MAX_OFFLINE_SECONDS} (how long the cluster stays offline, in wall seconds, not scaled by timeScale)`);
  }
  return problems;
}

/** Answers, then closes every node's listener for `seconds`. */
export function answerOffline(sim: Simulator, res: ServerResponse, seconds: number): void {
  const reachability = sim.reachability;
  if (reachability === undefined) return sendJson(res, 409, { problems: ['the simulator does not listen: nothing to take offline'] });
  const ms = seconds * 1000;
  res.once('finish', () => {
    reachability.offlineFor(ms).catch(() => undefined);
  });
  sendJson(res, 200, { offline: true, seconds, backAt: new Date(Date.now() + ms).toISOString() });
}
