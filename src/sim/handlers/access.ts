// GET /access/permissions (pve-access-control src/PVE/API2/AccessControl.pm
// permissions, 510-574): the calling token's own effective privileges.
import { effectivePermissions, heldAt } from '../permissions.js';
import type { Handler } from './context.js';

/**
 * With `path`: `{ <path>: { <privilege>: 1 } }`; `permissions()` answers a
 * hash even when nothing is held, and a hash is true in Perl, so an empty
 * one still comes back under its path (568-571). Without: the tree.
 * `userid` other than the caller needs Sys.Audit on /access; the
 * simulated token holds it unless denied, and its own id is always allowed.
 */
export const permissions: Handler = ({ sim, params }) => {
  const path = params.path;
  if (path !== undefined && path !== '') return { [path]: heldAt(sim.faults, path) };
  return effectivePermissions(sim.faults);
};
