// GET /nodes/{node}/tasks/{upid}/status and .../log (F16). A task is known
// only on the node that ran it, the node its UPID names.
import { paramError } from '../answer-error.js';
import { taskLogOf, taskStatusOf, type SimTask } from '../tasks.js';
import { texts } from '../texts.js';
import { param, type Handler, type HandlerContext } from './context.js';

function findTask(ctx: HandlerContext): SimTask {
  const upid = param(ctx, 'upid');
  if (!/^UPID:[^:]+:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:[^:]*:[^:]*:[^:]+:$/i.test(upid)) {
    throw paramError({ upid: 'unable to parse worker upid' });
  }
  const task = ctx.sim.tasks.get(upid);
  if (task === undefined || task.node !== param(ctx, 'node')) throw paramError({ upid: texts.noSuchTask });
  return task;
}

export const taskStatus: Handler = (ctx) => taskStatusOf(findTask(ctx));

export const taskLog: Handler = (ctx) => {
  const lines = taskLogOf(findTask(ctx));
  const start = Number(ctx.params.start ?? 0);
  const limit = Number(ctx.params.limit ?? 50);
  return lines.slice(start, start + limit).map((t, i) => ({ n: start + i + 1, t }));
};
