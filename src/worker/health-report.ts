// What the worker says about node health (SPEC 19): at start,
// one warn line for each node that cannot take VMs, naming the node and
// the checks that failed; afterwards a line only when a node's health
// changes (warn when it becomes unfit or fails other checks, info when it
// is fit again), and one warn line when no node at all can take a VM.
// A node's notes (SPEC 28) get one warn line each when they first appear
// or change. With several clusters (SPEC 32) a node is its cluster's (two
// clusters may each have a `pve1`): its lines name the cluster, and a
// cluster none of whose nodes can take a VM is told once too.
import type { Logger } from '../log.js';
import type { NodeHealth } from '../provider/types.js';
import { failedChecks, nodeCanProvision } from '../queue/health-store.js';

/** A node's health as far as a change is concerned: the reasons' kinds, not their wording. */
function stateOf(node: NodeHealth): string {
  return `${String(node.ok)}:${node.reasons.map((r) => r.reason).join(',')}`;
}

/** The node among every cluster's: its name, after its cluster's in the several-clusters form. */
function keyOf(node: NodeHealth): string {
  return node.cluster === undefined ? node.node : `${node.cluster}/${node.node}`;
}

/** `node pve1`, or `node pve1 of cluster east` in the several-clusters form. */
function nodeWords(node: NodeHealth): string {
  return node.cluster === undefined ? `node ${node.node}` : `node ${node.node} of cluster ${node.cluster}`;
}

function fieldsOf(node: NodeHealth): { node: string; cluster?: string } {
  return node.cluster === undefined ? { node: node.node } : { node: node.node, cluster: node.cluster };
}

/** The clusters none of whose nodes can take a VM (SPEC 32); empty in the one-cluster form. */
function clustersWithNone(nodes: readonly NodeHealth[]): Set<string> {
  const clusters = new Set(nodes.flatMap((node) => (node.cluster === undefined ? [] : [node.cluster])));
  return new Set([...clusters].filter((cluster) => !nodes.some((node) => node.cluster === cluster && nodeCanProvision(node))));
}

/**
 * Logs what changed from `before` (undefined: nothing known, as at start,
 * so every unfit node is told).
 */
export function reportHealth(logger: Logger, nodes: readonly NodeHealth[], before: readonly NodeHealth[] | undefined): void {
  const previous = new Map((before ?? []).map((node) => [keyOf(node), node]));
  for (const node of nodes) {
    const was = previous.get(keyOf(node));
    // Notes (a protected template, SPEC 28) do not make a node unfit: told at start and when they change.
    const notes = node.notes ?? [];
    if (notes.join('\n') !== (was?.notes ?? []).join('\n')) for (const note of notes) logger.warn(fieldsOf(node), `${nodeWords(node)}: ${note}`);
    if (was !== undefined && stateOf(was) === stateOf(node)) continue;
    const reasons = node.reasons.map((r) => r.reason);
    if (!node.ok) logger.warn({ ...fieldsOf(node), reasons }, `${nodeWords(node)} failed the health check: ${failedChecks(node)}`);
    else if (was !== undefined) logger.info(fieldsOf(node), `${nodeWords(node)} passes the health check again`);
  }
  const noneBefore = before === undefined ? new Set<string>() : clustersWithNone(before);
  for (const cluster of clustersWithNone(nodes)) {
    if (noneBefore.has(cluster)) continue;
    logger.warn({ cluster }, `no node of cluster ${cluster} can take a VM: its creates wait and retry until one of its nodes passes the health check`);
  }
  const none = nodes.length > 0 && !nodes.some(nodeCanProvision);
  const wasNone = before !== undefined && before.length > 0 && !before.some(nodeCanProvision);
  if (none && !wasNone) {
    logger.warn({ nodes: nodes.map((n) => n.node) }, 'no node can take a VM: creates wait and retry until a node passes the health check');
  }
}
