// Every privilege the service needs, in one place (SPEC 33): on which
// ACL path, why, for which configured feature, and which seam methods
// need it. `verify` checks the token against it (checks/privileges.ts),
// the README's "On your own cluster" block is generated from it (npm run
// docs:privileges), and test/verify/privileges.test.ts holds it against
// every route's schema check (vendor/pve-api/apidata.json), so a seam
// method cannot be added without its privilege.
import type { Config } from '../config/types.js';
import type { RouteName } from '../proxmox/routes.js';
import { configuredTemplates } from './template-configs.js';

/**
 * Where a privilege is needed:
 * - `template`: `/vms/<template vmid>`, each template an image names;
 * - `vms`: the VMs of proxmox.vmidRange; Proxmox has no ACL on a range,
 *   so it is granted on `/vms` and checked at `/vms/<vmidRange.min>`;
 * - `isoStorage`, `cloneStorage`: `/storage/<id>` (the clone's storage:
 *   nodes[].storage, else each storage of the template's disks);
 * - `bridge`: `/sdn/zones/localnetwork/<bridge>`, or `.../<bridge>/<tag>`
 *   with a VLAN tag (pve-guest-common GuestHelpers.pm check_vnet_access
 *   408-420: the tag's own path; a grant on the bridge propagates to it);
 * - `root`: `/` (it propagates to `/nodes/<node>`).
 */
export type PathKind = 'template' | 'vms' | 'isoStorage' | 'cloneStorage' | 'bridge' | 'root';

export interface PrivilegeRule {
  privilege: string;
  on: PathKind;
  why: string;
  /** The configured feature that needs it. */
  feature: string;
  /** The seam methods that need it (their schema check or, for `user: all` routes, their description). */
  routes: RouteName[];
  /** Needed only by a config this holds for (the feature is configured); always when absent. */
  onlyWhen?: (config: Config) => boolean;
}

export const PRIVILEGES: readonly PrivilegeRule[] = [
  { privilege: 'VM.Audit', on: 'template', why: 'read the template\'s config before a clone', feature: 'create', routes: ['getConfig'] },
  { privilege: 'VM.Clone', on: 'template', why: 'full-clone the template', feature: 'create', routes: ['clone'] },
  { privilege: 'VM.Allocate', on: 'vms', why: 'create a VM at a VMID of the range, and destroy it', feature: 'create, delete', routes: ['clone', 'destroy'] },
  { privilege: 'VM.Audit', on: 'vms', why: 'read a VM\'s config, pending values and status, and see it in node listings', feature: 'create, get, list, reconcile', routes: ['getConfig', 'pendingConfig', 'statusCurrent', 'nodeVms'] },
  { privilege: 'VM.Config.CPU', on: 'vms', why: 'set cores', feature: 'create, in-place change', routes: ['putConfig'] },
  { privilege: 'VM.Config.Memory', on: 'vms', why: 'set memory', feature: 'create, in-place change', routes: ['putConfig'] },
  { privilege: 'VM.Config.Options', on: 'vms', why: 'set agent, tags and description, delete the protection a clone copies', feature: 'create', routes: ['putConfig'] },
  { privilege: 'VM.Config.CDROM', on: 'vms', why: 'attach the seed ISO on ide2', feature: 'create', routes: ['putConfig'] },
  { privilege: 'VM.Config.Network', on: 'vms', why: 'set net0\'s bridge and VLAN tag', feature: 'nodes[].bridge, nodes[].vlanTag', routes: ['putConfig'] },
  { privilege: 'VM.Config.Disk', on: 'vms', why: 'grow the boot disk', feature: 'create (diskGiB)', routes: ['resize'] },
  { privilege: 'VM.PowerMgmt', on: 'vms', why: 'start and stop VMs', feature: 'create, delete', routes: ['start', 'stop'] },
  { privilege: 'VM.GuestAgent.Audit', on: 'vms', why: 'read the guest agent\'s addresses', feature: 'create (address wait)', routes: ['agentInterfaces'] },
  { privilege: 'VM.GuestAgent.FileWrite', on: 'vms', why: 'write the claimer\'s SSH keys into a pool VM through the guest agent', feature: 'pools (a claim)', routes: ['agentFileWrite'], onlyWhen: (config) => config.pools.length > 0 },
  { privilege: 'Datastore.AllocateSpace', on: 'cloneStorage', why: 'allocate the clone\'s disks, and see the storage in listings', feature: 'create', routes: ['clone', 'resize', 'storages'] },
  { privilege: 'Datastore.AllocateTemplate', on: 'isoStorage', why: 'upload the seed ISO', feature: 'create', routes: ['upload'] },
  // Content.pm delete: `user: all`, its description: "You need 'Datastore.Allocate' privilege on the storage".
  { privilege: 'Datastore.Allocate', on: 'isoStorage', why: 'delete a seed ISO', feature: 'create, delete, reconcile', routes: ['deleteVolume'] },
  { privilege: 'Datastore.Audit', on: 'isoStorage', why: 'list the seeds, see the storage, and attach an ISO from it (check_volume_access)', feature: 'create, reconcile, health', routes: ['storageContent', 'storages'] },
  { privilege: 'SDN.Use', on: 'bridge', why: 'clone a template whose net0 is on the bridge, set net0 on it, and see it listed', feature: 'create (net0)', routes: ['clone', 'putConfig', 'networks'] },
  { privilege: 'Sys.Audit', on: 'root', why: 'read node and cluster status (health), and task status and logs on every node', feature: 'health, tasks', routes: ['nodeStatus', 'clusterStatus', 'taskStatus', 'taskLog', 'nodeTasks'] },
];

/** One (path, privilege) the token must hold for a config. */
export interface PrivilegeNeed {
  privilege: string;
  /** The ACL path checked (`/vms/9001`). */
  path: string;
  /** Where to grant it (`/vms` for the VMID range; else the path itself). */
  grantPath: string;
  /** The README's role that holds it on that path. */
  role: string;
  why: string;
  feature: string;
}

/** What verify read of a template: its net0 bridge and tag, its disks' storages. */
export interface TemplateFacts {
  node: string;
  vmid: number;
  bridge?: string;
  tag?: number;
  storages: string[];
}

/** The bridge path of check_vnet_access: the tag's own path with a tag, the bridge's without. */
export function bridgePath(bridge: string, tag?: number): string {
  return tag === undefined ? `/sdn/zones/localnetwork/${bridge}` : `/sdn/zones/localnetwork/${bridge}/${tag}`;
}

type Paths = Record<PathKind, string[]>;

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/** The concrete paths of each kind for a config (and what verify read of its templates). */
function pathsOf(config: Config, facts: TemplateFacts[]): Paths {
  // The templates the images name (verify reads the same ones): a node's own `template` only when no image is configured.
  const templates = configuredTemplates(config);
  const factsOf = (t: { node: string; vmid: number }): TemplateFacts | undefined => facts.find((f) => f.vmid === t.vmid && f.node === t.node);
  const cloneStorages = config.proxmox.nodes.flatMap((n) => (n.storage !== undefined ? [n.storage] : templates.filter((t) => t.node === n.name).flatMap((t) => factsOf(t)?.storages ?? [])));
  // The clone checks the template's net0 (Qemu.pm clone_vm 4494), the config write the net0 it writes: the configured bridge and tag over the template's.
  const bridges = config.proxmox.nodes.flatMap((n) =>
    templates
      .filter((t) => t.node === n.name)
      .flatMap((t) => {
        const f = factsOf(t);
        const bridge = n.bridge ?? f?.bridge;
        if (bridge === undefined) return [];
        const written = n.bridge !== undefined || n.vlanTag !== undefined ? [bridgePath(bridge, n.vlanTag ?? f?.tag)] : [];
        return [...(f?.bridge === undefined ? [] : [bridgePath(f.bridge, f.tag)]), ...written];
      }),
  );
  return {
    template: unique(templates.map((t) => `/vms/${t.vmid}`)),
    vms: [`/vms/${config.proxmox.vmidRange.min}`],
    isoStorage: unique(config.proxmox.nodes.map((n) => `/storage/${n.isoStorage}`)),
    cloneStorage: unique(cloneStorages.map((s) => `/storage/${s}`)),
    bridge: unique(bridges),
    root: ['/'],
  };
}

/** Every (path, privilege) this config needs, in the list's order, each once. */
export function expandPrivileges(config: Config, facts: TemplateFacts[] = []): PrivilegeNeed[] {
  const paths = pathsOf(config, facts);
  const seen = new Set<string>();
  const needs: PrivilegeNeed[] = [];
  for (const rule of PRIVILEGES) {
    if (rule.onlyWhen?.(config) === false) continue;
    for (const path of paths[rule.on]) {
      const key = `${path} ${rule.privilege}`;
      if (seen.has(key)) continue;
      seen.add(key);
      needs.push({ privilege: rule.privilege, path, grantPath: grantPathOf(rule.on, path), role: ROLES[rule.on], why: rule.why, feature: rule.feature });
    }
  }
  return needs;
}

/**
 * One role per kind of path, each with only the privileges needed there:
 * one role on `/` would hand every privilege to every path below it.
 */
export const ROLES: Record<PathKind, string> = {
  template: 'PVEProvisionerVM',
  vms: 'PVEProvisionerVM',
  isoStorage: 'PVEProvisionerSeeds',
  cloneStorage: 'PVEProvisionerDisks',
  bridge: 'PVEProvisionerNet',
  root: 'PVEProvisionerAudit',
};

/** Where a privilege of this kind is granted: `/vms` for the VMs (and the templates under it), else the path. */
export function grantPathOf(kind: PathKind, path: string): string {
  return kind === 'vms' || kind === 'template' ? '/vms' : path;
}

/** Each role and its privileges, in the list's order. */
export function rolePrivileges(): Map<string, string[]> {
  const roles = new Map<string, string[]>();
  for (const rule of PRIVILEGES) {
    const role = ROLES[rule.on];
    const privs = roles.get(role) ?? [];
    if (!privs.includes(rule.privilege)) privs.push(rule.privilege);
    roles.set(role, privs);
  }
  return roles;
}
