// `pve-provisioner verify [--create] [--node NODE]... [--record DIR] [--json]`
// (SPEC 33): every check of the configured Proxmox in order, each with its
// result and, when it fails, what to do in one line; `--create` then makes
// one VM on each node (or each --node) and deletes it; `--record DIR`
// writes every request and answer as fixtures. Exit 0 when everything
// holds, 1 when a check fails, 2 on bad usage or config, 130 when Ctrl-C
// stopped the create.
import type { Config } from '../config/index.js';
import { clusterNamed, clustersOf, configForCluster, isMultiCluster } from '../config/clusters.js';
import { simulatedClusterUrls } from './sim-clusters.js';
import { silentLogger } from '../log.js';
import { proxmoxApiFromConfig } from '../worker/proxmox-api.js';
import { verifyCreate, type NodeCreateReport } from '../verify/create/verify-create.js';
import { openRecorder, type Recorder } from '../verify/record/recorder.js';
import { errorText, fail } from '../verify/context.js';
import { runChecks, type ChecksRun } from '../verify/run-checks.js';
import { readTokenId } from '../verify/token-id.js';
import { loadConfigOrExplain } from './common.js';
import { withSimScaledTimes } from './sim-scaled-times.js';
import { BadInput, parseFlags } from './flags.js';
import { answerUsage, wantsHelp } from './help.js';
import { jsonDocument } from './terminal-text.js';
import { checkLines, createTable, summaryLine } from './verify-output.js';

const USAGE = `usage: pve-provisioner verify [--cluster NAME] [--create] [--node NODE]... [--record DIR] [--json]
  Checks the configured Proxmox VE: the API and its version, the token's
  privileges, the nodes, storages, bridges and templates; a failed check
  says what to do in one line.
  --cluster NAME  with proxmox.clusters, the cluster to check (default: the first)
  --create      then create one VM on each node (or each --node), wait for
                its address, delete it; Ctrl-C deletes what it made
  --node NODE   the node to create on (repeat for more; default: every node)
  --record DIR  write every request and answer as fixture files in DIR
  --json        print one JSON document: { ok, checks, inventory, create? }
  Exit 0 when everything holds, 1 when a check fails, 2 on bad usage.
  Configured by environment variables and PVE_PROVISIONER_CONFIG (see README.md, "Configuration").
`;

interface Flags {
  cluster?: string;
  create: boolean;
  nodes: string[];
  record?: string;
  json: boolean;
}

function flagsOf(args: string[]): Flags {
  const values = parseFlags(args, {
    cluster: { type: 'string' },
    create: { type: 'boolean' },
    node: { type: 'string', multiple: true },
    record: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.record === '') throw new BadInput('--record needs a directory');
  if (values.node !== undefined && values.create !== true) throw new BadInput('--node names where --create creates: give --create too');
  if (values.cluster === '') throw new BadInput('--cluster needs a cluster name');
  return { ...(values.cluster === undefined ? {} : { cluster: values.cluster }), create: values.create === true, nodes: values.node ?? [], ...(values.record === undefined ? {} : { record: values.record }), json: values.json === true };
}

/**
 * The simulator's address when proxmox.url is "sim", as the worker
 * resolves it: the i-th simulated cluster's (SPEC 32) listens on sim.port + i.
 */
export function proxmoxUrlOf(config: Config): string {
  if (config.proxmox.url !== 'sim') return config.proxmox.url;
  const urls = simulatedClusterUrls(config);
  return urls.get(config.proxmox.clusterName ?? '') ?? `http://${config.sim.host}:${config.sim.port}`;
}

/** SIGINT once: abort the create (it deletes what it made); twice: exit 130 at once. */
function interruptible(): { signal: AbortSignal; interrupted: () => boolean; release: () => void } {
  const controller = new AbortController();
  const onSigint = (): void => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write('pve-provisioner verify: interrupted, cleaning up (Ctrl-C again to leave at once)\n');
    controller.abort(new Error('interrupted (SIGINT)'));
  };
  process.on('SIGINT', onSigint);
  return { signal: controller.signal, interrupted: () => controller.signal.aborted, release: () => process.off('SIGINT', onSigint) };
}

interface Outcome extends ChecksRun {
  create?: NodeCreateReport[];
}

/** What run() calls that a test may replace: the create (the verify-create branch builds it). */
export interface VerifyDeps {
  verifyCreate: typeof verifyCreate;
}

async function verifyAll(config: Config, flags: Flags, recorder: Recorder | undefined, signal: AbortSignal, deps: VerifyDeps): Promise<Outcome> {
  const proxmoxUrl = proxmoxUrlOf(config);
  const api = proxmoxApiFromConfig(config, proxmoxUrl, undefined, recorder?.onExchange);
  const tokenId = (await readTokenId(config.proxmox.tokenFile)) ?? `<the token id in ${config.proxmox.tokenFile}>`;
  const run = await runChecks({ config, api, tokenId, proxmoxUrl, ...(recorder ? { onGroup: (group: string) => recorder.step(group) } : {}) });
  if (!flags.create || run.checks.some((c) => c.status === 'fail') || signal.aborted) return run;
  const nodes = flags.nodes.length > 0 ? flags.nodes : config.proxmox.nodes.map((n) => n.name);
  const onStep = (step: string, node: string): void => {
    recorder?.step(step, node);
    if (!flags.json) process.stderr.write(`verify --create: ${node}: ${step}\n`);
  };
  let create: NodeCreateReport[];
  try {
    create = await deps.verifyCreate({ config, api, logger: silentLogger(), nodes, signal, onStep });
  } catch (err) {
    // The create reports its own failures as checks; this is one it could not report.
    const failed = fail('create', `create on ${nodes.join(', ')}`, errorText(err), `check that no VM named verify-* is left on ${nodes.join(', ')} (qm list), then run verify --create again`);
    return { ...run, checks: [...run.checks, failed] };
  }
  const steps = [...run.steps, ...create.flatMap((r) => r.steps.map((s) => ({ name: s.step, node: r.node, ms: s.ms })))];
  return { ...run, steps, checks: [...run.checks, ...create.flatMap((r) => r.checks)], create };
}

function print(outcome: Outcome, json: boolean): void {
  const ok = outcome.checks.every((c) => c.status !== 'fail');
  if (json) {
    process.stdout.write(jsonDocument({ ok, checks: outcome.checks, inventory: outcome.inventory, ...(outcome.create ? { create: outcome.create } : {}) }));
    return;
  }
  process.stdout.write(checkLines(outcome.checks));
  if (outcome.create) process.stdout.write(`\n${createTable(outcome.create)}\n`);
  process.stdout.write(summaryLine(outcome.checks));
}

function usageProblem(config: Config, flags: Flags): string | undefined {
  const names = config.proxmox.nodes.map((n) => n.name);
  const unknown = flags.nodes.filter((n) => !names.includes(n));
  if (unknown.length > 0) return `--node ${unknown.join(', ')}: not in proxmox.nodes (${names.join(', ')})`;
  return undefined;
}

async function openRecording(dir: string | undefined): Promise<Recorder | undefined | Error> {
  if (dir === undefined) return undefined;
  try {
    return await openRecorder(dir);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

export async function run(args: string[], deps: VerifyDeps = { verifyCreate }): Promise<number> {
  if (wantsHelp(args)) return answerUsage('verify', USAGE, undefined);
  let flags: Flags;
  try {
    flags = flagsOf(args);
  } catch (err) {
    if (!(err instanceof BadInput)) throw err;
    return answerUsage('verify', USAGE, err.message);
  }
  const loaded = loadConfigOrExplain('verify');
  if (loaded === undefined) return 2;
  // SPEC 32: one cluster's view; the one-cluster form's is the config itself.
  const cluster = clusterNamed(loaded, flags.cluster);
  if (cluster === undefined) return answerUsage('verify', USAGE, `--cluster ${flags.cluster ?? ''}: not a configured cluster (${clustersOf(loaded).map((c) => c.name).join(', ')})`);
  if (isMultiCluster(loaded) && !flags.json) process.stderr.write(`pve-provisioner verify: cluster ${cluster.name}\n`);
  // On the simulator its first address comes after a few seconds, not the 30 s guessed of a real boot (SPEC 8).
  const config = withSimScaledTimes(configForCluster(loaded, cluster), process.env);
  const problem = usageProblem(config, flags);
  if (problem !== undefined) return answerUsage('verify', USAGE, problem);
  const recorder = await openRecording(flags.record);
  if (recorder instanceof Error) {
    process.stderr.write(`pve-provisioner verify: --record ${flags.record ?? ''}: ${recorder.message}\n`);
    return 2;
  }
  return runAndReport(config, flags, recorder, deps);
}

async function runAndReport(config: Config, flags: Flags, recorder: Recorder | undefined, deps: VerifyDeps): Promise<number> {
  const sigint = interruptible();
  let outcome: Outcome | undefined;
  try {
    outcome = await verifyAll(config, flags, recorder, sigint.signal, deps);
    print(outcome, flags.json);
  } finally {
    sigint.release();
    // The recording's index is written whatever happened, failure and Ctrl-C too.
    await recorder?.finish(outcome?.inventory ?? { nodes: [], storages: [], templates: [], bridges: [] }, outcome?.steps ?? []);
  }
  if (sigint.interrupted()) return 130;
  return outcome.checks.some((c) => c.status === 'fail') ? 1 : 0;
}
