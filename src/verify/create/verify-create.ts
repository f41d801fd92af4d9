// `verify --create` (SPEC 33): one create on each node asked, with the
// provider a worker runs, waited to its address, then deleted, then a
// look for anything left (the VM, its seed). Each step's time and calls
// are reported. Whatever happens (a failed step, Ctrl-C) the delete runs,
// on a signal of its own, until nothing of the create is left or its
// deadline passes: a clone still running is waited out, not missed.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Config } from '../../config/types.js';
import type { Logger } from '../../log.js';
import type { ProxmoxApi } from '../../proxmox/api.js';
import { createProvider } from '../../provider/provider.js';
import type { CreateSpec, Provider } from '../../provider/types.js';
import type { CheckResult } from '../types.js';
import { createSpecOn, nextStep } from './create-spec.js';
import { deleteUntilGone } from './cleanup.js';
import { leftBehind } from './leftovers.js';
import { describeFailure } from './failure-fix.js';
import { stepClock, type CreateStepReport, type StepClock } from './step-clock.js';

export type { CreateStepReport } from './step-clock.js';

export interface NodeCreateReport {
  node: string;
  /** The VM's name (`verify-<random>`) and VMID, once known. */
  name: string;
  vmid?: number;
  address?: string;
  steps: CreateStepReport[];
  /** The create's, the delete's and the leftovers' results, as checks (group `create`). */
  checks: CheckResult[];
}

export interface VerifyCreateOptions {
  config: Config;
  api: ProxmoxApi;
  logger: Logger;
  /** The nodes to create on, one VM each, in turn. */
  nodes: string[];
  /** Aborted on SIGINT: the create stops and what it made is deleted. */
  signal: AbortSignal;
  /** Told when a step starts on a node (the recorder's step, a progress line). */
  onStep?: (step: string, node: string) => void;
}

export async function verifyCreate(options: VerifyCreateOptions): Promise<NodeCreateReport[]> {
  const reports: NodeCreateReport[] = [];
  for (const node of options.nodes) {
    if (options.signal.aborted) break;
    reports.push(await createAndDeleteOn(node, options));
  }
  return reports;
}

/**
 * The images as verify's create waits for them: through the guest agent,
 * whatever their readiness (SPEC 29). verify runs no web process for a
 * guest to phone home to and takes no address lease for a tcp probe; the
 * agent's address proves the template boots, gets its network and reports.
 */
function withAgentReadiness(config: Config): Config {
  const images = config.proxmox.images.map(({ readiness: _readiness, readinessPort: _port, ...image }) => image);
  return { ...config, proxmox: { ...config.proxmox, images } };
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

async function createAndDeleteOn(node: string, options: VerifyCreateOptions): Promise<NodeCreateReport> {
  const name = `verify-${randomBytes(4).toString('hex')}`;
  const spec = createSpecOn(options.config, { name, uid: randomUUID(), node });
  const clock = stepClock(options.api);
  const provider = createProvider({ api: clock.api, config: withAgentReadiness(options.config), logger: options.logger });
  const report: NodeCreateReport = { node, name, steps: clock.steps, checks: [] };
  await createStep(provider, spec, clock, report, options);
  await deleteStep(provider, spec, clock, report, options);
  options.onStep?.('checked', node);
  const left = await leftBehind(clock.api, options.config, node, spec.name, report.vmid ?? clock.newid);
  clock.ended('checked');
  report.checks.push(
    left.length === 0
      ? { group: 'create', name: `nothing left on ${node}`, status: 'ok', detail: `no VM named ${name}, no seed ${name}-seed.iso` }
      : { group: 'create', name: `nothing left on ${node}`, status: 'fail', detail: `left behind: ${left.join(', ')}`, fix: `delete them in Proxmox (the reconciler also removes them: they carry the tag ${options.config.proxmox.tag})` },
  );
  return report;
}

async function createStep(provider: Provider, spec: CreateSpec, clock: StepClock, report: NodeCreateReport, options: VerifyCreateOptions): Promise<void> {
  const { node } = report;
  const started = Date.now();
  options.onStep?.(nextStep(undefined) ?? 'cloned', node);
  try {
    const created = await provider.create(spec, {
      signal: options.signal,
      progress: (step) => {
        clock.ended(step);
        const next = nextStep(step);
        if (next !== undefined) options.onStep?.(next, node);
      },
    });
    report.vmid = created.vmid;
    if (created.address !== undefined) report.address = created.address;
    const detail = `VM ${created.vmid} (${spec.name}) running at ${created.address ?? 'no address'} after ${seconds(Date.now() - started)}`;
    report.checks.push({ group: 'create', name: `create on ${node}`, status: 'ok', detail });
  } catch (err) {
    if (clock.newid !== undefined) report.vmid = clock.newid;
    clock.ended(options.signal.aborted ? 'interrupted' : 'failed');
    report.checks.push({ group: 'create', name: `create on ${node}`, status: 'fail', ...describeFailure(err, options.signal, clock.steps) });
  }
}

async function deleteStep(provider: Provider, spec: CreateSpec, clock: StepClock, report: NodeCreateReport, options: VerifyCreateOptions): Promise<void> {
  const { node } = report;
  options.onStep?.('deleted', node);
  const started = Date.now();
  try {
    const deleted = await deleteUntilGone(provider, { name: spec.name, uid: spec.uid, ...(clock.newid === undefined ? {} : { knownVmid: clock.newid }) }, options.config);
    clock.ended('deleted');
    const what = deleted.deleted ? `VM ${deleted.vmid ?? report.vmid ?? '?'} and ${deleted.seedsDeleted} seed deleted` : `nothing of ${spec.name} to delete (${deleted.seedsDeleted} seed removed)`;
    report.checks.push({ group: 'create', name: `delete on ${node}`, status: 'ok', detail: `${what} in ${seconds(Date.now() - started)}` });
  } catch (err) {
    clock.ended('deleted');
    const message = err instanceof Error ? err.message : String(err);
    report.checks.push({ group: 'create', name: `delete on ${node}`, status: 'fail', detail: message, fix: `delete VM ${report.vmid ?? spec.name} and ${spec.name}-seed.iso in Proxmox, or let the reconciler remove them` });
  }
}
