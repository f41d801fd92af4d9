// Every check group of `verify`, in order (SPEC 33): api, privileges,
// nodes, storages, networks, templates. When the api group fails the rest
// are skipped; each group's time is kept for the recording's index.
import type { Config } from '../config/types.js';
import type { ProxmoxApi } from '../proxmox/api.js';
import { checkApi } from './checks/api.js';
import { checkNetworks } from './checks/networks.js';
import { checkNodes } from './checks/nodes.js';
import { checkPrivileges } from './checks/privileges.js';
import { checkStorages } from './checks/storages.js';
import { checkTemplates } from './checks/templates.js';
import { errorText, fail, skip, type VerifyContext } from './context.js';
import type { RecordedStep } from './record/recorder.js';
import { templateLoader } from './template-configs.js';
import type { CheckResult, HostInventory } from './types.js';

export const GROUPS: [string, (ctx: VerifyContext) => Promise<CheckResult[]>][] = [
  ['api', checkApi],
  ['privileges', checkPrivileges],
  ['nodes', checkNodes],
  ['storages', checkStorages],
  ['networks', checkNetworks],
  ['templates', checkTemplates],
];

export interface RunChecksOptions {
  config: Config;
  api: ProxmoxApi;
  tokenId: string;
  proxmoxUrl: string;
  /** Told before each group starts (the recorder's step). */
  onGroup?: (group: string) => void;
}

export interface ChecksRun {
  checks: CheckResult[];
  inventory: HostInventory;
  steps: RecordedStep[];
}

export function emptyInventory(): HostInventory {
  return { nodes: [], storages: [], templates: [], bridges: [] };
}

export async function runChecks(options: RunChecksOptions): Promise<ChecksRun> {
  const inventory = emptyInventory();
  const ctx: VerifyContext = { ...options, inventory, templates: templateLoader(options.config, options.api, inventory) };
  const checks: CheckResult[] = [];
  const steps: RecordedStep[] = [];
  let apiFailed = false;
  for (const [group, check] of GROUPS) {
    if (apiFailed) {
      checks.push(skip(group, `${group} checks`, 'the API did not answer'));
      continue;
    }
    options.onGroup?.(group);
    const started = Date.now();
    try {
      checks.push(...(await check(ctx)));
    } catch (err) {
      checks.push(fail(group, `${group} checks`, `stopped: ${errorText(err)}`, 'run verify again; if it repeats, report it with the output of verify --json'));
    }
    steps.push({ name: group, ms: Date.now() - started });
    apiFailed ||= group === 'api' && checks.some((c) => c.group === 'api' && c.status === 'fail' && c.name.startsWith('API'));
  }
  return { checks, inventory, steps };
}
