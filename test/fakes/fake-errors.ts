// Every error the fake produces, in one place, so a test can hold each
// text against the fixture it reproduces (fixtures/README.md). A text no
// host ever produced starts with `fake:` and names no fixture.
import { ProxmoxApiError } from '../../src/proxmox/api-error.js';

function apiError(status: number, message: string, errors?: Record<string, string>, reason = message): ProxmoxApiError {
  return new ProxmoxApiError({ status, reason, message, ...(errors ? { errors } : {}), method: 'FAKE', path: '/fake' });
}

const PARAMS = 'Parameter verification failed.';

/** Each maker, with the fixture it reproduces and the arguments that reproduce it exactly. */
export const fakeErrors = {
  /** F2 */
  configMissing: (node: string, vmid: number) =>
    apiError(500, `Configuration file 'nodes/${node}/qemu-server/${vmid}.conf' does not exist`),
  /** F4 */
  configExists: (vmid: number) => apiError(500, `unable to create VM ${vmid}: config file already exists`),
  /** F7 */
  vmLocked: (lock: string) => apiError(500, `VM is locked (${lock})`),
  /** F5 */
  agentNotRunning: () => apiError(500, 'QEMU guest agent is not running'),
  agentNotConfigured: () => apiError(500, 'No QEMU guest agent configured'),
  vmNotRunning: (vmid: number) => apiError(500, `VM ${vmid} is not running`),
  /** SPEC 17 */
  destroyRunning: (vmid: number) => apiError(500, `VM ${vmid} is running - destroy failed`),
  /** AbstractConfig.pm check_protection (audit 7.1): destroy_vm passes `can't remove VM <id>`. */
  protectionEnabled: (what: string) => apiError(500, `${what} - protection mode enabled`),
  /** F9 */
  tagInvalid: () => apiError(400, PARAMS, { tags: 'invalid format - invalid characters in tag' }),
  /** Qemu.pm $check_drive_param: an ISO attached without `media=cdrom`. */
  mediaCdromRequired: (key: string) => apiError(400, PARAMS, { [key]: "explicit 'media=cdrom' is required for iso images" }),
  /** Qemu.pm create_disks: a volume that is not there (a plain die). */
  volumeMissing: (volid: string) => apiError(500, `volume ${volid} does not exist`),
  /** F12 */
  uploadWrongExtension: () => apiError(400, PARAMS, { filename: 'wrong file extension' }),
  /** F15 */
  storageNoImages: (storage: string) => apiError(400, PARAMS, { storage: `storage '${storage}' does not support vm images` }),
  /** F13 */
  forbiddenVolumeDelete: (storage: string) =>
    apiError(403, `Permission check failed (/storage/${storage}, Datastore.Allocate)`),
  /** F22 */
  authFailed: () => apiError(401, 'Authentication failed!'),
  /** Proxy errors on an unreachable node. */
  noRouteToHost: () => apiError(595, 'No route to host'),
  /** Storage.pm storage_config: a plain die, so a 500 (audit 2c). */
  storageMissing: (storage: string) => apiError(500, `storage '${storage}' does not exist`),
  /** Storage.pm storage_check_enabled: `disable` in storage.cfg (a plain die, SPEC 28). */
  storageDisabled: (storage: string) => apiError(500, `storage '${storage}' is disabled`),
  /** Storage.pm storage_check_node: the storage's `nodes` leave this node out (a plain die, SPEC 28). */
  storageNotOnNode: (storage: string, node: string) => apiError(500, `storage '${storage}' is not available on node '${node}'`),
  /** clone_vm: `storage` with a linked clone (a plain die). */
  linkedCloneStorage: () => apiError(500, "parameter 'storage' not allowed for linked clones"),
  /** clone_vm: `target` when a disk of the source is on local storage. */
  cloneTargetLocal: (target: string) => apiError(500, `can't clone VM to node '${target}' (VM uses local storage)`),
  /** clone_vm: `target` with a `storage` that is not shared. */
  cloneTargetStorageNotShared: (storage: string) => apiError(500, `can't clone to non-shared storage '${storage}'`),
  /** PVE::Cluster::check_node_exists: clone's `target` names no cluster node (a plain die). */
  noSuchClusterNode: (node: string) => apiError(500, `no such cluster node '${node}'`),
  /** raise_perm_exc, e.g. clone's Datastore.AllocateSpace check before the fork. */
  forbidden: (path: string, privilege: string) => apiError(403, `Permission check failed (${path}, ${privilege})`),
  /** update_vm_api: a value a running VM's hotplug refused (src/sim/hotplug.ts), left pending; no fixture. */
  hotplugRefused: (errors: Record<string, string>) => apiError(400, PARAMS, errors),
  /** A task asked of a node that does not run it: no fixture; the simulator's answer (src/sim/handlers/tasks.ts). */
  noSuchTask: () => apiError(400, PARAMS, { upid: 'no such task' }),
  noSuchNode: (node: string) => apiError(595, `fake: no such node '${node}'`),
  injected: (text: string) => apiError(500, `fake: ${text}`),
} as const;

/**
 * Task exit texts (F16, F20, and the Proxmox source where no fact covers
 * them): a task that dies on a plain `die` ends with its text, one that
 * dies on a PVE::Exception with `<code> <text>` (Exception.pm stringify).
 */
export const fakeTaskExits = {
  shrink: 'shrinking disks is not supported',
  /** QemuServer vm_start */
  alreadyRunning: (vmid: number) => `VM ${vmid} already running`,
  /** QemuServer vm_start */
  startTemplate: "you can't start a vm if it's a template",
  /** F2's text, raised inside the task (start, stop and resize load the config in the worker). */
  configMissing: (node: string, vmid: number) => `Configuration file 'nodes/${node}/qemu-server/${vmid}.conf' does not exist`,
  /** F7's text, raised by check_lock inside the task (resize, start, stop, destroy). */
  vmLocked: (lock: string) => `VM is locked (${lock})`,
  /** destroy_vm's early checks repeated in the worker (audit 7.1). */
  protectionEnabled: (vmid: number) => `can't remove VM ${vmid} - protection mode enabled`,
  /** vm_stop's check_running: QemuConfig assert_config_exists_on_node (not F2's text). */
  noConfigOnNode: (vmid: number, node: string) => `unable to find configuration file for VM ${vmid} on node '${node}'`,
  /** Qemu.pm resize_vm */
  diskMissing: (disk: string) => `disk '${disk}' does not exist`,
  /** A clone onto a VMID a VM on another node holds: pmxcfs refuses the rename (File.pm file_set_contents, audit 2b). */
  vmidElsewhere: (node: string, vmid: number) => `close (rename) atomic file '/etc/pve/nodes/${node}/qemu-server/${vmid}.conf' failed: File exists`,
  /** clone_vm's worker: clone_disk activates a disk's storage that storage_check_enabled refuses (SPEC 28). */
  cloneFailed: (text: string) => `clone failed: ${text}`,
  /** raise_perm_exc inside a worker: the code comes first (audit 4c). */
  forbidden: (path: string, privilege: string) => `403 Permission check failed (${path}, ${privilege})`,
} as const;

/** The calls of each maker that reproduce a fixture exactly; makers not listed here must produce `fake:` texts. */
export const FIXTURE_SAMPLES: { fixture: string; make: () => ProxmoxApiError }[] = [
  { fixture: 'err_config_missing', make: () => fakeErrors.configMissing('pv1-1', 999999) },
  { fixture: 'err_config_exists', make: () => fakeErrors.configExists(199999) },
  { fixture: 'err_vm_locked_clone', make: () => fakeErrors.vmLocked('clone') },
  { fixture: 'err_agent_not_running', make: () => fakeErrors.agentNotRunning() },
  { fixture: 'err_agent_not_configured', make: () => fakeErrors.agentNotConfigured() },
  { fixture: 'err_vm_not_running', make: () => fakeErrors.vmNotRunning(199999) },
  { fixture: 'err_destroy_running', make: () => fakeErrors.destroyRunning(199999) },
  { fixture: 'err_tag_invalid', make: () => fakeErrors.tagInvalid() },
  { fixture: 'err_upload_wrong_extension', make: () => fakeErrors.uploadWrongExtension() },
  { fixture: 'err_clone_storage_no_images', make: () => fakeErrors.storageNoImages('local') },
  { fixture: 'err_forbidden_volume_delete', make: () => fakeErrors.forbiddenVolumeDelete('local') },
  { fixture: 'err_auth_failed', make: () => fakeErrors.authFailed() },
  { fixture: 'err_proxy_595', make: () => fakeErrors.noRouteToHost() },
];

/**
 * Makers no fixture captured but the simulator answers alike; the contract
 * suite (test/sim/contract.test.ts) holds each against it.
 */
export const SIMULATOR_SAMPLES: (() => ProxmoxApiError)[] = [
  () => fakeErrors.noSuchTask(),
  () => fakeErrors.protectionEnabled("can't remove VM 199999"),
  () => fakeErrors.storageMissing('x'),
  () => fakeErrors.storageDisabled('proxy-seeds'),
  () => fakeErrors.storageNotOnNode('local-lvm', 'pv1-1'),
  () => fakeErrors.linkedCloneStorage(),
  () => fakeErrors.cloneTargetLocal('pv1-2'),
  () => fakeErrors.cloneTargetStorageNotShared('local-lvm'),
  () => fakeErrors.noSuchClusterNode('pv9-9'),
  () => fakeErrors.forbidden('/storage/local-lvm', 'Datastore.AllocateSpace'),
  () => fakeErrors.mediaCdromRequired('ide2'),
  () => fakeErrors.volumeMissing('proxy-seeds:iso/none.iso'),
  () => fakeErrors.hotplugRefused({ memory: "hotplug problem - memory can't be lower than 1024 MB" }),
];

/** Makers whose texts were never seen on a host, with sample arguments. */
export const FAKE_ONLY_SAMPLES: (() => ProxmoxApiError)[] = [
  () => fakeErrors.noSuchNode('x'),
  () => fakeErrors.injected('x'),
];
