// `pve-provisioner reconcile [--dry-run] [--wait] [--timeout SECONDS]
// [--json]` (SPEC 5, 6): adds a reconcile job to the system queue, where a
// worker runs the sweep; prints the job id, and with --wait the sweep's
// report as JSON; with --json stdout is one JSON document instead, as for
// `enqueue` (`{"id"}`, with --wait `{"id", "state", "result",
// "failedReason"}`, the report as its result). Exit 0 done, 1 Redis
// unreachable or the job failed or did not finish in time, 2 bad input
// (the reason on stderr).
import type { Queue } from 'bullmq';
import { JOB_TABLE, limitsFromConfig, validateJobData } from '../job-table/schema.js';
import { ConfigError, loadConfig } from '../config/index.js';
import type { Config } from '../config/index.js';
import { connected, createProducerConnection, RedisUnavailableError } from '../queue/connection.js';
import { jobDoor } from '../queue/enqueue.js';
import { isFinished, viewJob } from '../queue/job-view.js';
import type { JobView } from '../queue/job-view.js';
import { JobWatch } from '../queue/job-watch.js';
import { createQueues } from '../queue/queues.js';
import { keyPrefixOf } from '../queue/redis-target.js';
import { waitForJob } from '../queue/wait-for-job.js';
import { BadInput, parseFlags } from './flags.js';
import { answerUsage, wantsHelp } from './help.js';
import { jsonDocument, shown } from './terminal-text.js';

const USAGE = 'usage: pve-provisioner reconcile [--dry-run] [--wait [--timeout SECONDS]] [--json]\n';
const DEFAULT_TIMEOUT_SECONDS = 600;
const POLL_MS = 200;

export interface ReconcileCommandIo {
  /** The loaded config; loadConfig() when absent. */
  config?: Config;
  stdout?: { write(text: string): unknown };
  stderr?: { write(text: string): unknown };
}

interface Options {
  dryRun: boolean;
  wait: boolean;
  json: boolean;
  timeoutSeconds: number;
}

function parse(args: string[]): Options {
  const values = parseFlags(args, { 'dry-run': { type: 'boolean' }, wait: { type: 'boolean' }, timeout: { type: 'string' }, json: { type: 'boolean' } });
  const timeout = values.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(values.timeout);
  if (!Number.isInteger(timeout) || timeout < 1) throw new BadInput(`--timeout "${values.timeout ?? ''}": a whole number of seconds, at least 1`);
  if (values.timeout !== undefined && !values.wait) throw new BadInput('--timeout needs --wait');
  return { dryRun: values['dry-run'] ?? false, wait: values.wait ?? false, json: values.json ?? false, timeoutSeconds: timeout };
}

export async function run(args: string[], io: ReconcileCommandIo = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  if (wantsHelp(args)) return answerUsage('reconcile', USAGE, undefined, { stdout });
  let options: Options;
  try {
    options = parse(args);
  } catch (err) {
    if (!(err instanceof BadInput)) throw err;
    stderr.write(`pve-provisioner reconcile: ${err.message}\n${USAGE}`);
    return 2;
  }
  let config: Config;
  try {
    config = io.config ?? loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    stderr.write(`pve-provisioner reconcile: ${err.message}\n`);
    return 2;
  }
  const limits = limitsFromConfig(config);
  const data = validateJobData('reconcile', { dryRun: options.dryRun }, limits);
  if (!data.ok) throw new Error(`reconcile job data refused: ${data.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);

  const redis = createProducerConnection(config.redis);
  try {
    await connected(redis);
  } catch (err) {
    redis.disconnect();
    if (!(err instanceof RedisUnavailableError)) throw err;
    stderr.write(`pve-provisioner reconcile: ${err.message}\n`);
    return 1;
  }
  const queues = createQueues(redis, keyPrefixOf(config.redis.prefix, config.redis), config.jobs);
  try {
    const job = await jobDoor(queues, limits).add('reconcile', data.value);
    if (!options.json) stdout.write(`${job.id ?? ''}\n`);
    if (!options.wait) {
      if (options.json) stdout.write(jsonDocument({ id: job.id ?? '' }));
      return 0;
    }
    return await waitAndPrint(queues[JOB_TABLE.reconcile.queue], job.id ?? '', options, stdout, stderr);
  } finally {
    await queues.close().catch(() => undefined);
    redis.disconnect();
  }
}

/** The same wait as the producer library's waitForJob (queue/wait-for-job.ts), then the job's end as the usage says. */
async function waitAndPrint(queue: Queue, id: string, { timeoutSeconds, json }: Options, stdout: { write(text: string): unknown }, stderr: { write(text: string): unknown }): Promise<number> {
  const read = (jobId: string): Promise<JobView | undefined> => viewJob(queue, jobId, undefined);
  const view = await waitForJob(new JobWatch(read, POLL_MS), read, id, { timeoutMs: timeoutSeconds * 1000 });
  if (!isFinished(view)) {
    if (json) stdout.write(jsonDocument({ id, state: view.state }));
    stderr.write(`pve-provisioner reconcile: job ${id} is still ${view.state} after ${timeoutSeconds} s (is a worker serving the system queue?)\n`);
    return 1;
  }
  // A failed job has no result: null, as BullMQ's returnvalue of one.
  if (json) stdout.write(jsonDocument({ id, state: view.state, result: view.result ?? null, failedReason: view.failedReason }));
  if (view.state === 'failed') {
    stderr.write(`pve-provisioner reconcile: job ${id} failed: ${shown(view.failedReason ?? 'no reason recorded')}\n`);
    return 1;
  }
  if (!json) stdout.write(jsonDocument(view.result ?? null));
  return 0;
}
