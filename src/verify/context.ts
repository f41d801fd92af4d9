// What every check group gets (SPEC 33): the config, the API, the token's
// id (never its secret), the inventory it fills, and the templates' configs
// read once for every group that needs them.
import type { Config } from '../config/types.js';
import type { ProxmoxApi, VmConfig } from '../proxmox/api.js';
import type { CheckResult, HostInventory } from './types.js';

export interface TemplateEntry {
  node: string;
  vmid: number;
  /** The config key that names it, for a fix (`proxmox.nodes[0].template`). */
  key: string;
  /** Its config, or why it could not be read. */
  config?: VmConfig;
  error?: unknown;
}

export interface VerifyContext {
  config: Config;
  api: ProxmoxApi;
  /** `user@realm!id` from proxmox.tokenFile, or the file's name when it holds no such part. */
  tokenId: string;
  /** The URL the calls go to (proxmox.url, or the simulator's). */
  proxmoxUrl: string;
  inventory: HostInventory;
  /** Every template of every image on every node, each read once (templates.ts). */
  templates(): Promise<TemplateEntry[]>;
}

export function ok(group: string, name: string, detail: string): CheckResult {
  return { group, name, status: 'ok', detail };
}

export function fail(group: string, name: string, detail: string, fix: string): CheckResult {
  return { group, name, status: 'fail', detail, fix };
}

export function skip(group: string, name: string, detail: string): CheckResult {
  return { group, name, status: 'skip', detail };
}

/** The error's own words: a classified error's reason, else its message. */
export function errorText(err: unknown): string {
  if (typeof err === 'object' && err !== null && typeof (err as { reason?: unknown }).reason === 'string') return (err as { reason: string }).reason;
  return err instanceof Error ? err.message : String(err);
}
