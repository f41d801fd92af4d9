// cloud-init's phone_home as the simulated guest runs it (SPEC 29): a POST
// of the asked keys as application/x-www-form-urlencoded, tried `tries`
// times with a pause between (url_helper's sec_between, 3 s), any answer
// but 2xx or a failed connection costing a try. Only to this machine:
// a URL whose host is not loopback is skipped, never connected to.
import { isLoopbackIpv4 } from '../../addresses/ipv4.js';
import type { GuestSeed } from './types.js';

/** url_helper.read_file_or_url's pause between tries, before timeScale. */
export const PHONE_HOME_PAUSE_SECONDS = 3;
/** cloud-init sets no timeout; the simulator gives up on one try after this long (ms). */
const TRY_TIMEOUT_MS = 30_000;

/** One try, as `GET /_sim/guests` lists it: the URL's origin only, never its path (it may carry a token). */
export interface PhoneHomeCall {
  vmid: number;
  origin: string;
  at: string;
  attempt: number;
  /** The answer's status; absent when there was none. */
  status?: number;
  error?: string;
  /** Why the guest did not call at all. */
  skipped?: string;
}

export interface PhoneHomeRun {
  vmid: number;
  seed: GuestSeed;
  pauseMs: number;
  signal: AbortSignal;
  record(call: PhoneHomeCall): void;
}

function isLocalHost(url: URL): boolean {
  const host = url.hostname;
  return host === 'localhost' || host === '[::1]' || isLoopbackIpv4(host);
}

/** cc_phone_home's keys the simulated guest has; the SSH host keys it has none of are left out, as requests drops a None. */
function formBody(seed: GuestSeed, post: readonly string[]): string {
  const known: Record<string, string | undefined> = { instance_id: seed.instanceId, hostname: seed.hostname, fqdn: seed.hostname };
  const form = new URLSearchParams();
  for (const key of post) {
    const value = known[key];
    if (value !== undefined) form.append(key, value);
  }
  return form.toString();
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/** Runs the seed's phone_home; resolves when it succeeded, gave up, was skipped or was aborted (a stop). */
export async function phoneHome(run: PhoneHomeRun): Promise<void> {
  const request = run.seed.phoneHome;
  if (request === undefined) return;
  // templater.render_string: $INSTANCE_ID and ${INSTANCE_ID} in the URL.
  const text = request.url.replace(/\$\{INSTANCE_ID\}|\$INSTANCE_ID/g, run.seed.instanceId ?? '');
  const base = { vmid: run.vmid, at: new Date().toISOString(), attempt: 0 };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    run.record({ ...base, origin: '', skipped: 'phone_home.url is not a URL' });
    return;
  }
  if (!isLocalHost(url)) {
    run.record({ ...base, origin: url.origin, skipped: `${url.hostname} is not a loopback address: the simulator connects nowhere off this machine` });
    return;
  }
  const body = formBody(run.seed, request.post);
  for (let attempt = 1; attempt <= request.tries && !run.signal.aborted; attempt += 1) {
    const call = { vmid: run.vmid, origin: url.origin, at: new Date().toISOString(), attempt };
    try {
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body,
        // A redirect could lead off this machine: the guest calls only the loopback URL it was given.
        redirect: 'manual',
        signal: AbortSignal.any([run.signal, AbortSignal.timeout(TRY_TIMEOUT_MS)]),
      });
      await answer.arrayBuffer().catch(() => undefined);
      run.record({ ...call, status: answer.status });
      if (answer.ok) return;
    } catch (err) {
      if (run.signal.aborted) return;
      run.record({ ...call, error: err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err) });
    }
    if (attempt < request.tries) await pause(run.pauseMs, run.signal);
  }
}
