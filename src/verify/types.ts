// What `pve-provisioner verify` reports (SPEC 33): each check with its
// result and, when it fails, what to do in one line; the inventory of the
// host it read, which a recording's index carries so a replay can set the
// simulator up the same way.
import type { StorageEntry, VersionInfo, VmConfig } from '../proxmox/api.js';

export type CheckStatus = 'ok' | 'fail' | 'skip';

export interface CheckResult {
  /** The check's group, in the order verify runs them: api, privileges, nodes, storages, networks, templates, create. */
  group: string;
  /** What was checked, in words (`node pve1 online`, `template 9001 on pve1`). */
  name: string;
  status: CheckStatus;
  /** What was found (`Proxmox VE 9.2.20`, `storage proxy-seeds is disabled`). */
  detail: string;
  /** When it failed: what to do, in one line (the privilege and path to grant, the option to set). */
  fix?: string;
}

/** What verify read of the host: the recording's index carries it for a replay. */
export interface HostInventory {
  version?: VersionInfo;
  nodes: { node: string; status: string }[];
  /** Every node's storages as `GET /nodes/{node}/storage` listed them. */
  storages: (StorageEntry & { node: string })[];
  /** Every template an image names, with its config. */
  templates: { node: string; vmid: number; config: VmConfig }[];
  /** Every node's bridges (`GET /nodes/{node}/network`), with their VLAN awareness. */
  bridges: { node: string; iface: string; vlanAware: boolean }[];
}
