// One reason of a health entry (SPEC 19), and the one a failed call stands for.
import { kindOf } from '../proxmox/classify.js';
import type { HealthReason, NodeHealth } from './types.js';

export type Finding = NodeHealth['reasons'][number];

/** The reason a failed call stands for: the client's kind when it has one, else the check's own. */
export function finding(err: unknown, fallback: HealthReason): Finding {
  const detail = err instanceof Error ? ('reason' in err && typeof err.reason === 'string' ? err.reason : err.message) : String(err);
  return { reason: kindOf(err) ?? fallback, detail };
}
