// `pve-provisioner enqueue create|delete|check|... --name NAME [job fields]
// [--wait [--timeout SECONDS]] [--json]` (SPEC 6): enqueues through the
// producer library and prints the job id; with --wait, its progress on
// stderr (src/cli/job-progress.ts) and its outcome on stdout, as lines for
// a person or with --json as one JSON document (src/cli/job-outcome.ts).
// Exit 0 done, 1 the job failed or did not finish in time, 2 bad input
// (every failing field, named by its flag, on stderr).
import { parseArgs } from 'node:util';
import { ConflictError, SpecConflictError, ValidationError, createUncheckedProvisionerClient } from '../client.js';
import { cliClientOptions } from './client-options.js';
import type { EnqueueResult, UncheckedProvisionerClient } from '../client.js';
import type { FieldSpec, FlagSpec } from '../job-table/fields.js';
import { CALLER_JOBS, JOB_TABLE } from '../job-table/schema.js';
import type { CallerJob } from '../job-table/schema.js';
import { ConfigError, loadConfig } from '../config/index.js';
import type { Config } from '../config/index.js';
import { BadInput, readUtf8File } from './flags.js';
import { readListFiles } from './key-files.js';
import { answerUsage, describeParseError, wantsHelp } from './help.js';
import { outcomeDocument, outcomeLines } from './job-outcome.js';
import { progressPrinter } from './job-progress.js';
import { jsonDocument, shown } from './terminal-text.js';

/** The jobs a caller enqueues, from the job table (src/job-table/schema.ts). */
const JOBS = CALLER_JOBS;
type EnqueueJob = CallerJob;

interface Flag {
  field: string;
  spec: FieldSpec;
  flag: FlagSpec;
}

function flagsOf(job: EnqueueJob): Flag[] {
  return Object.entries(JOB_TABLE[job].input).flatMap(([field, spec]) => (spec.flag ? [{ field, spec, flag: spec.flag }] : []));
}

function usageOf(flag: Flag): string {
  if (flag.spec.rule.kind === 'boolean') return `[--${flag.flag.name}]`;
  if (flag.spec.rule.kind === 'strings') return `[--${flag.flag.name} FILE]...`;
  const value = flag.flag.file ? 'FILE' : flag.spec.rule.kind === 'integer' ? 'N' : flag.field.toUpperCase();
  return flag.spec.presence === 'required' ? `--${flag.flag.name} ${value}` : `[--${flag.flag.name} ${value}]`;
}

const USAGE = [
  `usage: pve-provisioner enqueue ${JOBS.join('|')} --name NAME`,
  ...JOBS.map((job) => `  ${`${job}:`.padEnd(7)} ${flagsOf(job).filter((f) => f.field !== 'name').map(usageOf).join(' ') || '(no other flags)'}`),
  '  all:    [--wait [--timeout SECONDS]] [--json]',
  '  Prints the job id. With --wait, the job\'s state, log lines (each step) and address on stderr as they come,',
  '  then on stdout the job id, its state and its result (address, vmid, node, ...) or failure, one per line.',
  '  --json  stdout is one JSON document instead: {"id", "name", "uid", "generation", "existing", "origin"} (origin: a create\'s, pool or cold),',
  '          with --wait {"id", "state", "result", "failedReason"} (for jq; the progress stays on stderr).',
  '',
].join('\n');
const DEFAULT_TIMEOUT_SECONDS = 900;

export interface EnqueueCommandIo {
  config?: Config;
  stdout?: { write(text: string): unknown };
  stderr?: { write(text: string): unknown };
}

/** Job field -> the flag that sets it, so errors name what the user typed. */
const FLAG_OF: Record<string, string> = Object.fromEntries(JOBS.flatMap((job) => flagsOf(job).map((f) => [f.field, `--${f.flag.name}`])));

type OptionKind = { type: 'string'; multiple?: true } | { type: 'boolean' };

function optionOf(spec: FieldSpec): OptionKind {
  if (spec.rule.kind === 'boolean') return { type: 'boolean' };
  // A list's flag is repeated, each naming a file of items (src/cli/key-files.ts).
  return spec.rule.kind === 'strings' ? { type: 'string', multiple: true } : { type: 'string' };
}

const OPTIONS: Record<string, OptionKind> = {
  ...Object.fromEntries(JOBS.flatMap((job) => flagsOf(job).map((f): [string, OptionKind] => [f.flag.name, optionOf(f.spec)]))),
  wait: { type: 'boolean' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
};

/** The flags of the command itself, which every job takes. */
const COMMAND_FLAGS = new Set(['wait', 'timeout', 'json']);

type Values = Record<string, string | boolean | string[] | undefined>;

interface JobInput {
  input: Record<string, unknown>;
  /** Where a list item came from, by its field (`sshKeys[2]`), for the error lines. */
  origins: Record<string, string>;
}

/** A whole number given as text becomes a number; anything else stays text, for the validator to name. */
function integerOrText(text: string): number | string {
  return /^-?\d+$/.test(text) ? Number(text) : text;
}

/** The value a flag gives its field, as the producer takes it (the validator then decides). */
async function fieldValue(flag: Flag, given: string | boolean | string[], origins: Record<string, string>): Promise<unknown> {
  const { rule } = flag.spec;
  if (rule.kind === 'boolean') return flag.flag.sets ?? true;
  if (rule.kind === 'strings') {
    const read = await readListFiles(`--${flag.flag.name}`, Array.isArray(given) ? given : [String(given)], rule.maxItems * rule.itemMaxBytes);
    read.origins.forEach((origin, i) => (origins[`${flag.field}[${i}]`] = origin));
    return read.items;
  }
  const text = String(given);
  if (flag.flag.file) return readUtf8File(`--${flag.flag.name}`, text);
  return rule.kind === 'integer' ? integerOrText(text) : text;
}

async function jobInput(job: EnqueueJob, values: Values): Promise<JobInput> {
  const own = flagsOf(job);
  const ownNames = new Set(own.map((f) => f.flag.name));
  const misplaced = Object.keys(values).filter((name) => values[name] !== undefined && !ownNames.has(name) && !COMMAND_FLAGS.has(name));
  if (misplaced.length > 0) {
    const forWhich = (name: string): string => JOBS.filter((j) => flagsOf(j).some((f) => f.flag.name === name)).join(' and ');
    throw new BadInput(misplaced.map((name) => `--${name}: only for ${forWhich(name)}`).join('; '));
  }
  const input: Record<string, unknown> = {};
  const origins: Record<string, string> = {};
  for (const flag of own) {
    const given = values[flag.flag.name];
    if (given !== undefined && given !== false) input[flag.field] = await fieldValue(flag, given, origins);
  }
  return { input, origins };
}

function enqueue(client: UncheckedProvisionerClient, job: EnqueueJob, input: Record<string, unknown>): Promise<EnqueueResult> {
  if (job === 'create') return client.createVm(input);
  if (job === 'delete') return client.deleteVm(input);
  // Every other job of a name (check, ...) the same way, from the job table.
  return client.enqueueJob(job, input);
}

function parse(args: string[]): { job: EnqueueJob; values: Values; timeoutSeconds: number } {
  let parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new BadInput(describeParseError(err));
  }
  const [job, ...extra] = parsed.positionals;
  if (job === undefined || !(JOBS as readonly string[]).includes(job)) throw new BadInput(`the job must be one of ${JOBS.join(', ')}`);
  if (extra.length > 0) throw new BadInput(`unexpected argument ${extra.join(' ')}`);
  const values: Values = parsed.values;
  if (values.name === undefined) throw new BadInput('--name is required');
  const timeout = values.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(values.timeout);
  if (!Number.isInteger(timeout) || timeout < 1) throw new BadInput(`--timeout "${String(values.timeout ?? '')}": a whole number of seconds, at least 1`);
  if (values.timeout !== undefined && !values.wait) throw new BadInput('--timeout needs --wait');
  return { job: job as EnqueueJob, values, timeoutSeconds: timeout };
}

export async function run(args: string[], io: EnqueueCommandIo = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  if (wantsHelp(args)) return answerUsage('enqueue', USAGE, undefined, { stdout });
  const fail = (message: string): number => {
    stderr.write(`pve-provisioner enqueue: ${message}\n`);
    return 2;
  };
  let config: Config;
  let request: ReturnType<typeof parse>;
  let input: Record<string, unknown>;
  let origins: Record<string, string>;
  try {
    request = parse(args);
    ({ input, origins } = await jobInput(request.job, request.values));
    config = io.config ?? loadConfig();
  } catch (err) {
    if (err instanceof BadInput) return fail(`${err.message}\n${USAGE}`);
    if (err instanceof ConfigError) return fail(err.message);
    throw err;
  }

  const client = createUncheckedProvisionerClient(cliClientOptions(config));
  try {
    let result: EnqueueResult;
    try {
      result = await enqueue(client, request.job, input);
    } catch (err) {
      if (err instanceof ValidationError) return fail(err.fields.map((f) => `${origins[f.field] ?? FLAG_OF[f.field] ?? f.field} (${f.field}) ${f.message}`).join('\n'));
      if (err instanceof SpecConflictError) return fail([err.message, ...err.fields.map((f) => `${FLAG_OF[f] ?? f} (${f}) differs from the present spec`)].join('\n'));
      if (err instanceof ConflictError) return fail(shown(`${err.message} (${err.existingUid}); delete it first or use that uid`));
      throw err;
    }
    const json = request.values.json === true;
    if (!request.values.wait) {
      stdout.write(json ? jsonDocument({ id: result.jobId, name: result.name, uid: result.uid, generation: result.generation, existing: result.existing, ...(result.origin === undefined ? {} : { origin: result.origin }) }) : `${result.jobId}\n`);
      return 0;
    }
    // A person sees the id at once; a script gets it inside the one document at the end.
    if (!json) stdout.write(`${result.jobId}\n`);
    const progress = progressPrinter(stderr);
    const view = await client.waitForJob(result.jobId, { timeoutMs: request.timeoutSeconds * 1000, onView: (seen) => progress.see(seen) });
    progress.finish(view);
    stdout.write(json ? outcomeDocument(view) : outcomeLines(view));
    if (view.state === 'completed') return 0;
    stderr.write(
      view.state === 'failed'
        ? `pve-provisioner enqueue: job ${shown(view.id)} failed: ${shown(view.failedReason ?? 'no reason recorded')}\n`
        : `pve-provisioner enqueue: job ${shown(view.id)} is still ${view.state} after ${request.timeoutSeconds} s (is a worker running?)\n`,
    );
    return 1;
  } finally {
    await client.close();
  }
}
