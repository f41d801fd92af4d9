// What the worker says about node health (SPEC 19): at start,
// one warn line for each node that cannot take VMs, naming the node and
// the checks that failed; afterwards a line only when a node's health
// changes (warn when it becomes unfit or fails other checks, info when it
// is fit again), and one warn line when no node at all can take a VM.
// A node's notes (SPEC 28) get one warn line each when they first appear
// or change.
import type { Logger } from '../log.js';
import type { NodeHealth } from '../provider/types.js';
import { failedChecks, nodeCanProvision } from '../queue/health-store.js';

/** A node's health as far as a change is concerned: the reasons' kinds, not their wording. */
function stateOf(node: NodeHealth): string {
  return `${String(node.ok)}:${node.reasons.map((r) => r.reason).join(',')}`;
}

/**
 * Logs what changed from `before` (undefined: nothing known, as at start,
 * so every unfit node is told).
 */
export function reportHealth(logger: Logger, nodes: readonly NodeHealth[], before: readonly NodeHealth[] | undefined): void {
  const previous = new Map((before ?? []).map((node) => [node.node, node]));
  for (const node of nodes) {
    const was = previous.get(node.node);
    // Notes (a protected template, SPEC 28) do not make a node unfit: told at start and when they change.
    const notes = node.notes ?? [];
    if (notes.join('\n') !== (was?.notes ?? []).join('\n')) for (const note of notes) logger.warn({ node: node.node }, `node ${node.node}: ${note}`);
    if (was !== undefined && stateOf(was) === stateOf(node)) continue;
    const reasons = node.reasons.map((r) => r.reason);
    if (!node.ok) logger.warn({ node: node.node, reasons }, `node ${node.node} failed the health check: ${failedChecks(node)}`);
    else if (was !== undefined) logger.info({ node: node.node }, `node ${node.node} passes the health check again`);
  }
  const none = nodes.length > 0 && !nodes.some(nodeCanProvision);
  const noneBefore = before !== undefined && before.length > 0 && !before.some(nodeCanProvision);
  if (none && !noneBefore) {
    logger.warn({ nodes: nodes.map((n) => n.node) }, 'no node can take a VM: creates wait and retry until a node passes the health check');
  }
}
