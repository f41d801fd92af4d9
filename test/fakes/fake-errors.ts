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
  /** F9 */
  tagInvalid: () => apiError(400, PARAMS, { tags: 'invalid format - invalid characters in tag' }),
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
  storageMissing: (storage: string) => apiError(500, `fake: storage '${storage}' does not exist`),
  /** A task asked of a node that does not run it: no fixture; the simulator's answer (src/sim/handlers/tasks.ts). */
  noSuchTask: () => apiError(400, PARAMS, { upid: 'no such task' }),
  diskMissing: (disk: string) => apiError(500, `fake: no such disk '${disk}'`),
  noSuchNode: (node: string) => apiError(595, `fake: no such node '${node}'`),
  injected: (text: string) => apiError(500, `fake: ${text}`),
} as const;

/** Task exit texts (F16, F20); `fake:` for those no host produced. */
export const fakeTaskExits = {
  shrink: 'shrinking disks is not supported',
  alreadyRunning: (vmid: number) => `fake: VM ${vmid} already running`,
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
export const SIMULATOR_SAMPLES: (() => ProxmoxApiError)[] = [() => fakeErrors.noSuchTask()];

/** Makers whose texts were never seen on a host, with sample arguments. */
export const FAKE_ONLY_SAMPLES: (() => ProxmoxApiError)[] = [
  () => fakeErrors.storageMissing('x'),
  () => fakeErrors.diskMissing('scsi9'),
  () => fakeErrors.noSuchNode('x'),
  () => fakeErrors.injected('x'),
];
