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
  alreadyRunning: (vmid: number) => `VM ${vmid} already running`,
  noSuchTask: 'no such task',
  notImplemented: (method: string, path: string) => `Method '${method} ${path}' not implemented`,
  noTicket: 'No ticket',
  authFailed: 'Authentication failed!',
  unknownNode: (node: string) => `hostname lookup '${node}' failed - failed to get address info for: ${node}: Name or service not known`,
  noSuchStorage: (storage: string) => `storage '${storage}' does not exist`,
  diskMissing: (disk: string) => `disk '${disk}' does not exist`,
  notFileStorage: (type: string) => `can't upload to storage type '${type}', not a file based storage!`,
  noContent: (storage: string, content: string) => `storage '${storage}' does not support content-type '${content}'`,
} as const;
