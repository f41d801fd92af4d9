// Names and numbers the config and the producer library check alike,
// free of convict, so the producer library (SPEC 6) can import them.

/** A bridge name as Linux allows it (at most 15 characters). */
export const BRIDGE_RE = /^[a-zA-Z][a-zA-Z0-9_.-]{0,14}$/;
/** An image name: what a create's `image` field carries; address pools are named alike. */
export const IMAGE_NAME_RE = /^[a-z0-9][a-z0-9._-]{0,62}$/;

/** A cluster's name (SPEC 32): in Proxmox tags (`<tag>-cluster-<name>`), Redis keys, metric labels and a delete job's data. */
export const CLUSTER_NAME_RE = /^[a-z][a-z0-9-]{0,19}$/;

/** A Proxmox node name (letters, digits, "-"). */
export const NODE_NAME_RE = /^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;

export function isInt(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}
