// `pve-provisioner enqueue create|delete|check --name NAME [job fields]
// [--wait [--timeout SECONDS]]` (SPEC 6): enqueues through the producer
// library, prints the job id, and with --wait the job's outcome as JSON.
// Exit 0 done, 1 the job failed or did not finish in time, 2 bad input
// (every failing field, named by its flag, on stderr).
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ConflictError, ValidationError, createProvisionerClient } from '../client.js';
import type { EnqueueResult, ProvisionerClient } from '../client.js';
import { ConfigError, loadConfig } from '../config.js';
import type { Config } from '../config.js';
import { answerUsage, describeParseError, wantsHelp } from './help.js';

const USAGE = `usage: pve-provisioner enqueue create|delete|check --name NAME
  create: [--uid U] [--node N] [--cores N] [--memory-mib N] [--disk-gib N] [--user-data FILE]
          [--network-config FILE] [--vlan-tag N] [--bridge B] [--no-wait-for-address]
  delete: [--uid U]
  all:    [--wait [--timeout SECONDS]]
`;
const DEFAULT_TIMEOUT_SECONDS = 900;

export interface EnqueueCommandIo {
  config?: Config;
  stdout?: { write(text: string): unknown };
  stderr?: { write(text: string): unknown };
}

/** Job field -> the flag that sets it, so errors name what the user typed. */
const FLAG_OF: Record<string, string> = {
  name: '--name',
  uid: '--uid',
  node: '--node',
  cores: '--cores',
  memoryMiB: '--memory-mib',
  diskGiB: '--disk-gib',
  userData: '--user-data',
  networkConfig: '--network-config',
  vlanTag: '--vlan-tag',
  bridge: '--bridge',
  waitForAddress: '--no-wait-for-address',
};

const JOBS = ['create', 'delete', 'check'] as const;
type EnqueueJob = (typeof JOBS)[number];

class BadInput extends Error {}

const OPTIONS = {
  name: { type: 'string' },
  uid: { type: 'string' },
  node: { type: 'string' },
  cores: { type: 'string' },
  'memory-mib': { type: 'string' },
  'disk-gib': { type: 'string' },
  'user-data': { type: 'string' },
  'network-config': { type: 'string' },
  'vlan-tag': { type: 'string' },
  bridge: { type: 'string' },
  'no-wait-for-address': { type: 'boolean' },
  wait: { type: 'boolean' },
  timeout: { type: 'string' },
} as const;

type Values = ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS; allowPositionals: true; strict: true }>>['values'];

/** A whole number given as text becomes a number; anything else stays text, for the validator to name. */
function integerOrText(text: string | undefined): number | string | undefined {
  if (text === undefined) return undefined;
  return /^-?\d+$/.test(text) ? Number(text) : text;
}

async function readUtf8(flag: string, path: string | undefined): Promise<string | undefined> {
  if (path === undefined) return undefined;
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new BadInput(`${flag} ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new BadInput(`${flag} ${path}: not UTF-8 text`);
  }
}

const CREATE_ONLY = ['node', 'cores', 'memory-mib', 'disk-gib', 'user-data', 'network-config', 'vlan-tag', 'bridge', 'no-wait-for-address'] as const;

async function jobInput(job: EnqueueJob, values: Values): Promise<Record<string, unknown>> {
  if (job !== 'create') {
    const misplaced = CREATE_ONLY.filter((flag) => values[flag] !== undefined);
    if (misplaced.length > 0) throw new BadInput(`${misplaced.map((f) => `--${f}`).join(', ')}: only for create`);
    if (job === 'check' && values.uid !== undefined) throw new BadInput('--uid: not for check');
  }
  const input: Record<string, unknown> = {
    name: values.name,
    uid: values.uid,
    node: values.node,
    cores: integerOrText(values.cores),
    memoryMiB: integerOrText(values['memory-mib']),
    diskGiB: integerOrText(values['disk-gib']),
    userData: await readUtf8('--user-data', values['user-data']),
    networkConfig: await readUtf8('--network-config', values['network-config']),
    vlanTag: integerOrText(values['vlan-tag']),
    bridge: values.bridge,
    waitForAddress: values['no-wait-for-address'] ? false : undefined,
  };
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
}

function enqueue(client: ProvisionerClient, job: EnqueueJob, input: Record<string, unknown>): Promise<EnqueueResult> {
  switch (job) {
    case 'create':
      return client.createVm(input);
    case 'delete':
      return client.deleteVm(input);
    case 'check':
      return client.checkVm(input);
  }
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
  const { values } = parsed;
  if (values.name === undefined) throw new BadInput('--name is required');
  const timeout = values.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(values.timeout);
  if (!Number.isInteger(timeout) || timeout < 1) throw new BadInput(`--timeout "${values.timeout ?? ''}": a whole number of seconds, at least 1`);
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
  try {
    request = parse(args);
    input = await jobInput(request.job, request.values);
    config = io.config ?? loadConfig();
  } catch (err) {
    if (err instanceof BadInput) return fail(`${err.message}\n${USAGE}`);
    if (err instanceof ConfigError) return fail(err.message);
    throw err;
  }

  const client = createProvisionerClient({ redisUrl: config.redis.url, prefix: config.redis.prefix, config });
  try {
    let result: EnqueueResult;
    try {
      result = await enqueue(client, request.job, input);
    } catch (err) {
      if (err instanceof ValidationError) return fail(err.fields.map((f) => `${FLAG_OF[f.field] ?? f.field} (${f.field}) ${f.message}`).join('\n'));
      if (err instanceof ConflictError) return fail(`${err.message} (${err.existingUid}); delete it first or use that uid`);
      throw err;
    }
    stdout.write(`${result.jobId}\n`);
    if (!request.values.wait) return 0;
    const view = await client.waitForJob(result.jobId, { timeoutMs: request.timeoutSeconds * 1000 });
    stdout.write(`${JSON.stringify({ id: view.id, state: view.state, result: view.result, failedReason: view.failedReason }, null, 2)}\n`);
    if (view.state === 'completed') return 0;
    stderr.write(
      view.state === 'failed'
        ? `pve-provisioner enqueue: job ${view.id} failed: ${view.failedReason ?? 'no reason recorded'}\n`
        : `pve-provisioner enqueue: job ${view.id} is still ${view.state} after ${request.timeoutSeconds} s (is a worker running?)\n`,
    );
    return 1;
  } finally {
    await client.close();
  }
}
