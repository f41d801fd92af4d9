// GET /nodes/{node}/tasks/{upid}/status and .../log (F16). A task is known
// only on the node that ran it, the node its UPID names.
import { paramError } from '../answer-error.js';
import { WithAttributes } from '../http-io.js';
import { taskLogOf, taskStatusOf, type SimTask } from '../tasks.js';
import { texts } from '../texts.js';
import { param, type Handler, type HandlerContext } from './context.js';

/** The task whose log file this node holds, undefined when it has none; a UPID that does not parse is a 400. */
function localTask(ctx: HandlerContext): SimTask | undefined {
  const upid = param(ctx, 'upid');
  // PVE::UPID::decode: pstart has 8 or 9 hex digits.
  if (!/^UPID:[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?:[0-9A-F]{8}:[0-9A-F]{8,9}:[0-9A-F]{8}:[^:\s/]+:[^:\s/]*:[^:\s/]+:$/i.test(upid)) {
    throw paramError({ upid: 'unable to parse worker upid' });
  }
  const task = ctx.sim.tasks.get(upid);
  return task === undefined || task.node !== param(ctx, 'node') ? undefined : task;
}

/** read_task_status: no log file on this node is `no such task`. */
export const taskStatus: Handler = (ctx) => {
  const task = localTask(ctx);
  if (task === undefined) throw paramError({ upid: texts.noSuchTask });
  return taskStatusOf(task);
};

/**
 * read_task_log and dump_logfile: lines numbered from start+1, `limit=0` reads to the end,
 * an empty log is one `no content` line, and `total` (the lines counted)
 * goes beside the data.
 */
export const taskLog: Handler = (ctx) => {
  const task = localTask(ctx);
  // read_task_log does not check the file: dump_logfile answers a file it cannot open with one line.
  if (task === undefined) return new WithAttributes([{ n: 1, t: texts.logUnopenable }], { total: 1 });
  const lines = taskLogOf(task);
  const start = Number(ctx.params.start ?? 0);
  const limit = Number(ctx.params.limit ?? 50);
  if (lines.length === 0) return new WithAttributes([{ n: 1, t: 'no content' }], { total: 1 });
  const page = limit === 0 ? lines.slice(start) : lines.slice(start, start + limit);
  return new WithAttributes(
    page.map((t, i) => ({ n: start + i + 1, t })),
    { total: lines.length },
  );
};
