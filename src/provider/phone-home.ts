// Readiness `phone-home` (SPEC 29), the worker's part. Before the seed is
// built: a token of 32 random bytes (base64url, 43 characters; guessing
// is bounded by its entropy alone), bound to the VM's name, uid and
// generation, stored for readyTokenSeconds; the seed's vendor-data posts
// to <http.publicUrl>/v1/ready/<token>. After the VM runs: the signal the
// route leaves in Redis, read every pollMs/2 (ready-wait.ts).
import { randomBytes } from 'node:crypto';
import type { Config } from '../config/types.js';
import type { ProviderDeps } from './deps.js';
import { permanent, transient } from './errors.js';
import type { ReadySignals } from './ready-signals.js';
import type { CreateSpec } from './types.js';

const TOKEN_BYTES = 32;

/**
 * How long a token is good: the longest a create takes from its seed to
 * the end of its wait (the upload's, resize's and start's tasks, the
 * running wait, the readiness budget), so a slow step never leaves a
 * guest calling with a token already gone.
 */
export function readyTokenSeconds(budgets: Pick<Config['budgets'], 'taskSeconds' | 'runningSeconds' | 'addressSeconds'>): number {
  return 3 * budgets.taskSeconds + budgets.runningSeconds + budgets.addressSeconds;
}

export function requireReadySignals(deps: Pick<ProviderDeps, 'readySignals'>, name: string): ReadySignals {
  if (deps.readySignals === undefined) throw permanent(`create ${name}: readiness "phone-home" needs the store of phone-home tokens (the worker's Redis), which this provider has none of`);
  return deps.readySignals;
}

/** Draws and stores a token for this create; answers the URL its guest is to call. */
export async function issuePhoneHome(deps: Pick<ProviderDeps, 'config' | 'readySignals'>, spec: Pick<CreateSpec, 'name' | 'uid' | 'generation'>): Promise<string> {
  const signals = requireReadySignals(deps, spec.name);
  const base = deps.config.http?.publicUrl ?? '';
  if (base === '') throw permanent(`create ${spec.name}: readiness "phone-home" needs http.publicUrl, the address its guest calls; it is empty`);
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  try {
    await signals.issue(token, { name: spec.name, uid: spec.uid, generation: spec.generation ?? 0 }, readyTokenSeconds(deps.config.budgets));
  } catch (err) {
    throw transient(`create ${spec.name}: storing its phone-home token failed: ${err instanceof Error ? err.message : String(err)}`, err);
  }
  return `${base.replace(/\/+$/, '')}/v1/ready/${token}`;
}
