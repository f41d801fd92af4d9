// The one decorator of the seam: every ProxmoxApi method is
// built from the routes table (routes.ts), none is listed here or in a
// decorator, so a new Proxmox call is decorated as soon as it has its
// route. A decorator is an `around` function: it gets the call (its
// name, its route, what it names, its CallOptions) and `run`, which
// makes the call on the API it wraps with the CallOptions it is given.
// The log line and metrics (observed-api.ts), the request budget
// (budgeted-api.ts) and the daemon slots (daemon-slotted-api.ts) are each
// one; the node routing (node-routed-api.ts) picks the API per call
// through dispatchApi, underneath.
import type { CallOptions, ProxmoxApi } from './api.js';
import { ROUTES, ROUTE_NAMES } from './routes.js';
import type { CallIds, Route, RouteName } from './routes.js';

/** One call of a seam method, as a decorator sees it. */
export interface SeamCall {
  /** The seam method. */
  name: RouteName;
  /** Its row of the routes table. */
  route: Route;
  /** What the call names (routes.ts `ids`), its path values among them. */
  ids: CallIds;
  /** The caller's CallOptions, if any. */
  opts: CallOptions | undefined;
}

/** Makes the call with these CallOptions in place of the caller's; answers as the seam method does. */
export type Run = (opts: CallOptions | undefined) => Promise<unknown>;

/** A decorator: answers (or fails) in the call's place, around `run`. */
export type Around = (call: SeamCall, run: Run) => Promise<unknown>;

/** Makes the call on `api` with these CallOptions. */
export type SendTo = (api: ProxmoxApi, opts: CallOptions | undefined) => Promise<unknown>;

/** Answers a call, given the means to make it on any API. */
export type Dispatch = (call: SeamCall, sendTo: SendTo) => Promise<unknown>;

type SeamMethod = (...args: unknown[]) => Promise<unknown>;

function seamMethod(name: RouteName, dispatch: Dispatch): SeamMethod {
  const route: Route = ROUTES[name];
  const idsOf = ROUTES[name].ids as (...args: unknown[]) => CallIds;
  return (...args) => {
    const before = args.slice(0, route.arity);
    const call: SeamCall = { name, route, ids: idsOf(...before), opts: args[route.arity] as CallOptions | undefined };
    // Called on its API, not detached from it: a class (the fake) reads `this`.
    return dispatch(call, (api, opts) => (api[name] as SeamMethod).call(api, ...before, opts));
  };
}

/** A seam whose every method, one per route, hands its call to `dispatch`. */
export function dispatchApi(dispatch: Dispatch): ProxmoxApi {
  const api: Partial<Record<RouteName, SeamMethod>> = {};
  for (const name of ROUTE_NAMES) api[name] = seamMethod(name, dispatch);
  return api as ProxmoxApi;
}

/** `api` with `around` around each of its calls. */
export function decorateApi(api: ProxmoxApi, around: Around): ProxmoxApi {
  return dispatchApi((call, sendTo) => around(call, (opts) => sendTo(api, opts)));
}
