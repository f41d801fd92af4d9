// The logging decorator (SPEC 9): one debug line per Proxmox call with
// method, path, status, duration and the identifiers, never a secret
// (and the job's id when a job made the call), and one metrics
// observation per call. The identifiers are the route's (routes.ts `ids`).
import type { Logger } from '../log.js';
import type { ProxmoxCallMetrics } from '../metrics.js';
import type { ProxmoxApi } from './api.js';
import { isApiError } from './api-error.js';
import { decorateApi } from './decorate.js';
import type { Around } from './decorate.js';
import { fillPath, pathValuesOf } from './routes.js';
import type { PathValues } from './routes.js';

/** The status a call ended with: the HTTP status, or 0 when no answer came. */
function statusOf(err: unknown): number {
  return isApiError(err) ? err.status : 0;
}

/** The concrete path; the template when a value is missing (the call itself will say why). */
function pathOf(template: string, values: PathValues): string {
  try {
    return fillPath(template, values);
  } catch {
    return template;
  }
}

function observing(logger: Logger, metrics: ProxmoxCallMetrics | undefined): Around {
  return async ({ name, route, ids, opts }, run) => {
    const { method, template } = route;
    const path = pathOf(template, pathValuesOf(ids));
    const started = performance.now();
    let status = 0;
    let failure: string | undefined;
    try {
      const result = await run(opts);
      status = 200;
      return result;
    } catch (err) {
      status = statusOf(err);
      failure = err instanceof Error ? err.message : String(err);
      throw err;
    } finally {
      const seconds = (performance.now() - started) / 1000;
      // via: the node whose own apiUrl a cluster-wide call went to (SPEC 28), so health's check of it reads apart from proxmox.url's.
      const line = { call: name, method, path, status, durationMs: Math.round(seconds * 1000), ...ids, ...(opts?.via === undefined ? {} : { via: opts.via }) };
      // A job's call logs through the job's logger, so the line carries its id.
      (opts?.logger ?? logger).debug(failure === undefined ? line : { ...line, error: failure }, 'proxmox api call');
      metrics?.proxmoxCall(name, status === 0 ? 'error' : String(status), seconds);
    }
  };
}

export function observeApi(api: ProxmoxApi, logger: Logger, metrics?: ProxmoxCallMetrics): ProxmoxApi {
  return decorateApi(api, observing(logger, metrics));
}
