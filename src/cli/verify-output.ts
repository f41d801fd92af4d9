// How `verify` prints (SPEC 33): one line per check and, under a failed
// one, its fix; a summary line; `--create`'s steps as a table. The token
// is never part of any of it (the checks name the token by its id only).
import type { NodeCreateReport } from '../verify/create/verify-create.js';
import type { CheckResult } from '../verify/types.js';
import { table } from './table.js';
import { shown } from './terminal-text.js';

const LABEL = { ok: 'ok', fail: 'FAIL', skip: 'skip' } as const;

/** `ok    nodes      node pve1 online: online`, then `      fix: ...` under a failure. */
export function checkLines(checks: CheckResult[]): string {
  return checks
    .map((c) => {
      const line = `${LABEL[c.status].padEnd(5)} ${c.group.padEnd(10)} ${shown(c.name)}: ${shown(c.detail)}\n`;
      return c.status === 'fail' && c.fix !== undefined ? `${line}      fix: ${shown(c.fix)}\n` : line;
    })
    .join('');
}

export function summaryLine(checks: CheckResult[]): string {
  const count = (status: CheckResult['status']): number => checks.filter((c) => c.status === status).length;
  const failed = count('fail');
  return `verify: ${count('ok')} ok, ${failed} failed, ${count('skip')} skipped${failed === 0 ? '' : ' (each fix is under its FAIL line)'}\n`;
}

/** Each node's create steps: step, ms, and the Proxmox calls by seam method. */
export function createTable(reports: NodeCreateReport[]): string {
  const rows = reports.flatMap((r) =>
    r.steps.map((s) => [
      r.node,
      s.step,
      String(s.ms),
      Object.entries(s.calls)
        .map(([method, n]) => `${method}×${n}`)
        .join(' '),
    ]),
  );
  return table(['node', 'step', 'ms', 'calls'], rows);
}
