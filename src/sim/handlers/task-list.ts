// GET /nodes/{node}/tasks, as pve-manager's Tasks.pm `node_tasks` answers
// it: with `source` `active` or `all` the running tasks first (`status:
// RUNNING`, `user` as the UPID has it, `user!token`), then with `archive`
// or `all` the finished ones (`endtime`, `status` = the exit status text,
// `user` and `tokenid` apart), each part newest first. The filters run in
// Tasks.pm's order: userfilter (a case-insensitive substring of `user`),
// typefilter, vmid, since, until, the status filter, then `start` skips
// and `limit` counts down as entries are pushed (so `limit=0` returns
// none). `total` beside the data counts every entry the filters let
// through. The simulator's tokens may see every task (Sys.Audit).
import { WithAttributes } from '../http-io.js';
import type { SimTask } from '../tasks.js';
import { perlTrue, param, type Handler, type HandlerContext } from './context.js';

interface Entry {
  upid: string;
  node: string;
  pid: number;
  pstart: number;
  starttime: number;
  type: string;
  id: string;
  user: string;
  tokenid?: string;
  endtime?: number;
  status?: string;
}

/** PVE::UPID::normalize_status_type. */
function statusType(status: string | undefined): string {
  if (!status) return 'unknown';
  if (status === 'OK') return 'ok';
  if (/^WARNINGS: \d+$/.test(status)) return 'warning';
  if (status === 'unexpected status') return 'unknown';
  return 'error';
}

function statusFilter(ctx: HandlerContext): Record<string, boolean> {
  const errors = perlTrue(ctx.params.errors);
  const filter: Record<string, boolean> = { ok: !errors, warning: true, error: true, unknown: true };
  const listed = ctx.params.statusfilter;
  if (listed !== undefined && !errors) {
    for (const key of Object.keys(filter)) filter[key] = false;
    for (const item of listed.split(/[\s,;]+/).filter((i) => i !== '')) filter[item.toLowerCase()] = true;
  }
  return filter;
}

const newestFirst = (a: SimTask, b: SimTask): number => b.starttime - a.starttime || b.pid - a.pid;

function baseEntry(task: SimTask): Entry {
  return { upid: task.upid, node: task.node, pid: task.pid, pstart: task.pstart, starttime: task.starttime, type: task.type, id: task.id, user: task.user };
}

export const nodeTasks: Handler = (ctx) => {
  const node = param(ctx, 'node');
  const source = ctx.params.source ?? 'archive';
  const start = Number(ctx.params.start ?? 0);
  let limit = Number(ctx.params.limit ?? 50);
  const userfilter = ctx.params.userfilter;
  const typefilter = ctx.params.typefilter;
  const vmid = ctx.params.vmid;
  const since = ctx.params.since === undefined ? undefined : Number(ctx.params.since);
  const until = ctx.params.until === undefined ? undefined : Number(ctx.params.until);
  const statuses = statusFilter(ctx);
  let count = 0;

  // $filter_task: true when the entry is left out.
  const leftOut = (entry: Entry): boolean => {
    if (userfilter && !entry.user.toLowerCase().includes(userfilter.toLowerCase())) return true;
    if (typefilter && entry.type !== typefilter) return true;
    if (vmid && (!entry.id || entry.id !== vmid)) return true;
    if (since !== undefined && entry.starttime < since) return true;
    if (until !== undefined && entry.starttime > until) return true;
    if (!statuses[statusType(entry.status)]) return true;
    if (count++ < start) return true;
    return limit <= 0;
  };

  // since and until are checked before the start count, so a task outside them never shows or counts: left out here,
  // before the sort, a listing costs what it answers rather than every task the run made.
  const inWindow = (t: SimTask): boolean => t.node === node && (since === undefined || t.starttime >= since) && (until === undefined || t.starttime <= until);
  const tasks = [...ctx.sim.tasks.all()].filter(inWindow).sort(newestFirst);
  const out: Entry[] = [];
  if (source === 'active' || source === 'all') {
    for (const task of tasks) {
      if (task.outcome !== undefined) continue;
      // The active file's entries are not split into user and token.
      const entry = { ...baseEntry(task), user: task.tokenid ? `${task.user}!${task.tokenid}` : task.user };
      if (leftOut(entry)) continue;
      out.push({ ...entry, status: 'RUNNING' });
      limit -= 1;
    }
  }
  if (source !== 'active') {
    for (const task of tasks) {
      if (task.outcome === undefined) continue;
      const entry: Entry = { ...baseEntry(task), ...(task.tokenid ? { tokenid: task.tokenid } : {}), endtime: Math.floor(task.endAt / 1000), status: task.outcome.exitstatus };
      if (leftOut(entry)) continue;
      out.push(entry);
      limit -= 1;
    }
  }
  return new WithAttributes(out, { total: count });
};
