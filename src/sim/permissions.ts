// The token's privileges and the schema's permission checks (SPEC 33).
// The simulated token is root@pam's without privilege separation, so it
// holds every privilege (F17) on every path, less what the
// `denyPrivileges` fault takes away. pveproxy checks a route's
// `permissions` before it proxies the call or the handler checks its
// parameters (pve-manager PVE/HTTPServer.pm rest_handler, 171-176:
// check_api2_permissions, then proxyto); the check language is
// pve-access-control src/PVE/RPCEnvironment.pm exec_api2_perm_check
// (454-546) and check_api2_permissions (549-565).
import { SimAnswerError, permissionError } from './answer-error.js';
import type { Faults } from './faults.js';
import { ALL_PRIVILEGES } from './privileges.js';

/** A method's `permissions` in apidata.json. */
export interface RoutePermissions {
  user?: string;
  check?: unknown[];
  description?: string;
}

/** The token's privileges at an ACL path, each with its propagate flag (RPCEnvironment.pm permissions: root's are all, propagate 1). */
export function heldAt(faults: Faults, path: string): Record<string, number> {
  return Object.fromEntries(ALL_PRIVILEGES.filter((p) => !faults.privilegeDenied(p, path)).map((p) => [p, 1]));
}

/**
 * `GET /access/permissions` without `path`: RPCEnvironment.pm
 * get_effective_permissions (241-289): the top-level paths (no ACL and
 * no pool in the simulated cluster adds any), those where nothing is held
 * left out.
 */
export function effectivePermissions(faults: Faults): Record<string, Record<string, number>> {
  const paths = ['/', '/access', '/access/groups', '/nodes', '/pool', '/sdn', '/storage', '/vms'];
  return Object.fromEntries(paths.map((path): [string, Record<string, number>] => [path, heldAt(faults, path)]).filter(([, privs]) => Object.keys(privs).length > 0));
}

/** raise_perm_exc without a `what` (pve-common Exception.pm): the bare text. */
function bareRefusal(): SimAnswerError {
  return new SimAnswerError(403, 'Permission check failed\n');
}

/** PVE::Tools::template_replace: `{name}` becomes the parameter's value. */
function fillAclPath(template: string, params: Record<string, string>): string {
  const filled = template.replace(/\{([^}]+)\}/g, (whole, name: string) => params[name] ?? whole);
  // AccessControl.pm normalize_path: no doubled or trailing slash.
  return filled.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
}

/** The `['perm', path, [privs], key, value, ...]` test: check (every privilege) or check_any (one of them). */
function permTest(check: unknown[], params: Record<string, string>, faults: Faults, noerr: boolean): boolean {
  const [, template, privs, ...rest] = check as [string, string, string[], ...unknown[]];
  const options = new Map<unknown, unknown>();
  for (let i = 0; i + 1 < rest.length; i += 2) options.set(rest[i], rest[i + 1]);
  const requireParam = options.get('require_param');
  if (typeof requireParam === 'string' && params[requireParam] === undefined) {
    if (noerr) return false;
    throw bareRefusal();
  }
  const path = fillAclPath(template, params);
  const held = heldAt(faults, path);
  if (options.get('any') !== undefined && options.get('any') !== 0) {
    if (privs.some((p) => held[p] !== undefined)) return true;
    if (noerr) return false;
    throw permissionError(path, privs.join('|'));
  }
  const missing = privs.find((p) => held[p] === undefined);
  if (missing === undefined) return true;
  if (noerr) return false;
  throw permissionError(path, missing);
}

/** exec_api2_perm_check: `and` runs each test raising, `or` each quietly; tests the client's routes never use pass. */
function execCheck(check: unknown[], params: Record<string, string>, faults: Faults, noerr: boolean): boolean {
  const [test, ...subchecks] = check;
  if (test === 'and') {
    for (const sub of subchecks) execCheck(sub as unknown[], params, faults, false);
    return true;
  }
  if (test === 'or') {
    if (subchecks.some((sub) => execCheck(sub as unknown[], params, faults, true))) return true;
    if (noerr) return false;
    throw bareRefusal();
  }
  if (test === 'perm') return permTest(check, params, faults, noerr);
  return true;
}

/** check_api2_permissions for an API token (never `root@pam` itself): throws the 403 Proxmox answers. */
export function checkRoutePermissions(permissions: RoutePermissions | undefined, params: Record<string, string>, faults: Faults): void {
  if (permissions === undefined) throw new SimAnswerError(403, 'Permission check failed (user != root@pam)\n');
  if (permissions.user === 'all' || permissions.user === 'world') return;
  if (permissions.check !== undefined) {
    execCheck(permissions.check, params, faults, false);
    return;
  }
  throw bareRefusal();
}
