// The texts the simulated host answers with, word for word from the facts
// of the seeds (F2-F22) and the captures in fixtures/.

export const texts = {
  /** F2 */
  configMissing: (node: string, vmid: number) => `Configuration file 'nodes/${node}/qemu-server/${vmid}.conf' does not exist`,
  /** F4 */
  configExists: (vmid: number) => `unable to create VM ${vmid}: config file already exists`,
  /** F5 */
  agentNotRunning: 'QEMU guest agent is not running',
  agentNotConfigured: 'No QEMU guest agent configured',
  vmNotRunning: (vmid: number) => `VM ${vmid} is not running`,
  /** F7 */
  vmLocked: (lock: string) => `VM is locked (${lock})`,
  /** F9 */
  tagInvalid: 'invalid format - invalid characters in tag',
  /** F12 */
  wrongExtension: 'wrong file extension',
  /** F13 */
  permissionDenied: (path: string, privilege: string) => `Permission check failed (${path}, ${privilege})`,
  volumeMissing: (path: string) => `disk image '${path}' does not exist`,
  volumeRemoved: (volid: string) => `Removed volume '${volid}'`,
  /** F15 */
  noImages: (storage: string) => `storage '${storage}' does not support vm images`,
  /** F20 */
  shrinkRefused: 'shrinking disks is not supported',
  /** A task that waited 10 s for the VM's config lock file (captured as err_lock_timeout). */
  lockTimeout: (vmid: number) => `can't lock file '/var/lock/qemu-server/lock-${vmid}.conf' - got timeout`,
  destroyRunning: (vmid: number) => `VM ${vmid} is running - destroy failed`,
  /** AbstractConfig.pm check_protection: `$err_msg - protection mode enabled` (destroy_vm passes `can't remove VM <id>`). */
  protectionEnabled: (what: string) => `${what} - protection mode enabled`,
  alreadyRunning: (vmid: number) => `VM ${vmid} already running`,
  noSuchTask: 'no such task',
  /** PVE::Tools::dump_logfile on a task log file this node does not have. */
  logUnopenable: 'unable to open file - No such file or directory',
  notImplemented: (method: string, path: string) => `Method '${method} ${path}' not implemented`,
  noTicket: 'No ticket',
  authFailed: 'Authentication failed!',
  unknownNode: (node: string) => `hostname lookup '${node}' failed - failed to get address info for: ${node}: Name or service not known`,
  /** Storage.pm storage_config: a plain die (audit 2c). */
  noSuchStorage: (storage: string) => `storage '${storage}' does not exist`,
  /** Storage.pm storage_check_node: the storage's `nodes` in storage.cfg leave this node out (a plain die). */
  storageNotOnNode: (storage: string, node: string) => `storage '${storage}' is not available on node '${node}'`,
  /** Storage.pm storage_check_enabled: `disable` set in storage.cfg (a plain die, checked before the node). */
  storageDisabled: (storage: string) => `storage '${storage}' is disabled`,
  /** qemu-server clone_vm's worker: any failure inside it, prefixed. */
  cloneFailed: (text: string) => `clone failed: ${text}`,
  /** A clone onto a VMID another node holds: pmxcfs refuses the rename of the temporary config (File.pm, audit 2b). */
  vmidElsewhere: (node: string, vmid: number) => `close (rename) atomic file '/etc/pve/nodes/${node}/qemu-server/${vmid}.conf' failed: File exists`,
  cloneStart: (source: number, newid: number) => `creating a clone of VM ${source} with ID ${newid}`,
  linkedCloneStorage: "parameter 'storage' not allowed for linked clones",
  cloneTargetLocal: (target: string) => `can't clone VM to node '${target}' (VM uses local storage)`,
  cloneTargetStorageNotShared: (storage: string) => `can't clone to non-shared storage '${storage}'`,
  noSuchClusterNode: (node: string) => `no such cluster node '${node}'`,
  startTemplate: "you can't start a vm if it's a template",
  /** Qemu.pm $check_drive_param */
  mediaCdromRequired: "explicit 'media=cdrom' is required for iso images",
  /** Qemu.pm create_disks */
  volumeNotFound: (volid: string) => `volume ${volid} does not exist`,
  onlyRoot: 'Only root may use this option.',
  /** QemuConfig assert_config_exists_on_node, via check_running (vm_stop's worker). */
  noConfigOnNode: (vmid: number, node: string) => `unable to find configuration file for VM ${vmid} on node '${node}'`,
  diskMissing: (disk: string) => `disk '${disk}' does not exist`,
  /** pve-storage Status.pm upload, in its order. */
  notFileStorage: (type: string) => `can't upload to storage type '${type}'`,
  noContent: (storage: string, content: string) => `storage '${storage}' does not support '${content}' content`,
} as const;
