// A storage Proxmox refuses on a node (SPEC 28): storage.cfg disables it,
// or its `nodes` leave the node out (Storage.pm storage_check_enabled). No
// retry cures that, so the step fails Permanent, naming the config key
// that chose the storage and the node, and what to change.
import type { NodeConfig } from '../config/types.js';
import { PermanentError } from '../errors.js';
import { isApiError } from '../proxmox/api-error.js';
import { CLONE_FAILED_PREFIX, STORAGE_DISABLED, STORAGE_NOT_ON_NODE } from '../proxmox/messages.js';
import type { ProviderDeps } from './deps.js';
import { permanent } from './errors.js';
import { taskExitOf } from './tasks.js';
import { describeTemplate, nodeKey, type NodeImageTemplate } from './template-ref.js';

interface Refusal {
  storage: string;
  /** The node Proxmox named; undefined for `disabled`, which holds on every node. */
  node?: string;
}

/** The Proxmox text of an answer or of a failed task, wherever it sits in err's causes. */
function proxmoxText(err: unknown): string | undefined {
  for (let current: unknown = err, depth = 0; current instanceof Error && depth < 8; depth++) {
    if (isApiError(current)) return current.message;
    current = current.cause;
  }
  return taskExitOf(err)?.replace(CLONE_FAILED_PREFIX, '');
}

function refusalOf(err: unknown): Refusal | undefined {
  const text = proxmoxText(err);
  if (text === undefined) return undefined;
  const disabled = STORAGE_DISABLED.exec(text);
  if (disabled?.[1] !== undefined) return { storage: disabled[1] };
  const notOnNode = STORAGE_NOT_ON_NODE.exec(text);
  if (notOnNode?.[1] !== undefined) return { storage: notOnNode[1], node: notOnNode[2] };
  return undefined;
}

/** Which config key chose the storage: nodes[i].storage or isoStorage, else the template whose disks are on it. */
function chosenBy(deps: ProviderDeps, node: NodeConfig, storage: string, image: NodeImageTemplate | undefined): string {
  if (node.storage === storage) return nodeKey(deps, node, 'storage');
  if (node.isoStorage === storage) return nodeKey(deps, node, 'isoStorage');
  if (image === undefined) return 'proxmox.nodes';
  const there = `${image.key} (${describeTemplate(image.source)} has its disks there`;
  // The source's disks are activated on their own storages even when nodes[i].storage sends the copy elsewhere.
  return node.storage === undefined ? `${there}; or set ${nodeKey(deps, node, 'storage')})` : `${there})`;
}

/**
 * err as a Permanent error naming the key, when Proxmox refused a storage
 * as disabled or not available on a node; undefined for any other error.
 */
export function storageRefusal(deps: ProviderDeps, node: NodeConfig, err: unknown, image?: NodeImageTemplate): PermanentError | undefined {
  const refusal = refusalOf(err);
  if (refusal === undefined) return undefined;
  const key = chosenBy(deps, node, refusal.storage, image);
  if (refusal.node === undefined) {
    return permanent(`storage '${refusal.storage}' is disabled in Proxmox (storage.cfg), so node ${node.name} cannot use it: enable it, or fix ${key}`, err);
  }
  return permanent(
    `storage '${refusal.storage}' is not available on node ${refusal.node} (its nodes in storage.cfg leave ${refusal.node} out): add ${refusal.node} to the storage's nodes, or fix ${key}`,
    err,
  );
}
