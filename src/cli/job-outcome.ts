// How `enqueue --wait` shows the job it waited for on stdout: with --json
// one JSON document (the id inside it), else lines for a person: the id,
// the state, and each field of the result (a create's address, vmid,
// node, ...) or the failure reason.
import type { JobView } from '../client.js';
import { labelledLines } from './labelled-lines.js';
import { jsonDocument } from './terminal-text.js';

export function outcomeDocument(view: JobView): string {
  return jsonDocument({ id: view.id, state: view.state, result: view.result, failedReason: view.failedReason });
}

function valueText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function outcomeLines(view: JobView): string {
  const result: [string, unknown][] = typeof view.result === 'object' && view.result !== null ? Object.entries(view.result) : [['result', view.result]];
  return labelledLines([
    ['job', view.id],
    ['state', view.state],
    ['failed', view.failedReason],
    ...result.map(([key, value]) => [key, valueText(value)] as const),
  ]);
}
