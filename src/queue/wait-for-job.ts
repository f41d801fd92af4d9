// The wait on one job (SPEC 6): the caller's own first read, then the
// reads of the process's one watch of the job (job-watch.ts) until the
// job ends or the deadline passes. The producer library's waitForJob and
// `pve-provisioner reconcile --wait` (cli/reconcile.ts) both wait here.
import { RedisUnavailableError } from './connection.js';
import { isFinished, type JobView } from './job-view.js';
import type { JobWatch } from './job-watch.js';
import { unavailableReason } from './redis-failure.js';

export interface WaitOptions {
  timeoutMs?: number;
  onView?: (view: JobView) => void;
}

export const DEFAULT_WAIT_MS = 60_000;

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

export async function waitForJob(watch: JobWatch, getJob: (id: string) => Promise<JobView | undefined>, id: string, options: WaitOptions = {}): Promise<JobView> {
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_WAIT_MS);
  // Redis down at the call is an error at once, from this read.
  const first = await getJob(id);
  if (first === undefined) throw new Error(`job ${id} does not exist`);
  options.onView?.(first);
  if (isFinished(first) || Date.now() >= deadline) return first;
  return new Promise<JobView>((resolve, reject) => {
    let last = first;
    let outage: unknown;
    const settle = (done: () => void): void => {
      clearTimeout(timer);
      stop();
      done();
    };
    // At the deadline: the last view read, unless the reads since failed all along.
    const timer = setTimeout(() => {
      const reason = outage === undefined ? undefined : unavailableReason(outage);
      if (reason === undefined) settle(() => resolve(last));
      else settle(() => reject(outage instanceof RedisUnavailableError ? outage : new RedisUnavailableError(`Redis is not reachable (${reason})`, { cause: outage })));
    }, Math.max(0, deadline - Date.now()));
    const stop = watch.watch(id, (read) => {
      if ('error' in read) {
        // An outage after the first read (a restart, a failover) is waited
        // out until the deadline, a read cut off mid-command ('Connection is
        // closed.', a Cluster out of redirections) as much as one refused
        // before it was sent; any other failure ends the wait.
        if (unavailableReason(read.error) === undefined) settle(() => reject(asError(read.error)));
        else outage = read.error;
        return;
      }
      outage = undefined;
      if (read.view === undefined) return settle(() => reject(new Error(`job ${id} does not exist`)));
      last = read.view;
      try {
        options.onView?.(read.view);
      } catch (err) {
        return settle(() => reject(asError(err)));
      }
      if (isFinished(read.view)) settle(() => resolve(last));
    });
  });
}
