// How long pvedaemon may go on running a protected call the client gave
// up on (SPEC 28), per route, read from the Proxmox source. A slot stays
// taken that long (daemon-slotted-api.ts), so the service never counts a
// pvedaemon worker free while it may still be busy with one of our calls;
// a bound far above the source's (the old budgets.responseMs) would stall
// a node's slots for a minute per dropped connection.
import type { RouteName } from './routes.js';

export interface DaemonWorstCase {
  /** Longest pvedaemon may run the call, before proxmox.daemonSlotWorstCaseScale (ms). */
  ms: number;
  /**
   * Counted from the request's send, or from when the client gave up (an
   * upload: pvedaemon starts only once pveproxy has read the whole body,
   * which is no later than the client stopped sending it).
   */
  from: 'sent' | 'givenUp';
}

/** Margin over a source figure: the handler's own reads of /etc/pve and /proc around its timed steps. */
const MARGIN_MS = 2_000;

/** Margin over a lock's wait: the early checks before it, or the update after it. */
const WORK_MS = 5_000;

/** pve-common Tools.pm lock_file_full: a config lock (AbstractConfig.pm lock_config) and the task list's lock waits up to 10 s. */
const LOCK_WAIT_MS = 10_000;

/**
 * A call that forks a task (qemu-server Qemu.pm clone, start, stop,
 * destroy, resize; pve-storage Content.pm delete): early checks, then
 * fork_worker, whose parent waits for `/var/log/pve/tasks/.active.lock`
 * (pve-common RESTEnvironment.pm active_workers, 10 s) before it answers
 * the UPID. The task's own work runs in the forked child, not the worker.
 */
const FORKS_A_TASK: DaemonWorstCase = { ms: LOCK_WAIT_MS + WORK_MS, from: 'sent' };

/** A status read that asks QMP: QemuServer.pm vmstatus queues its commands with a 3 s timeout (QMPClient.pm queue_execute). */
const ASKS_QMP: DaemonWorstCase = { ms: 3_000 + MARGIN_MS, from: 'sent' };

/**
 * A storage listing activates each storage first: an NFS or CIFS check
 * alone may take 10 s (pve-storage NFSPlugin.pm check_connection), and a
 * hung mount has no bound at all. 30 s is pveproxy's own proxy timeout
 * (pve-http-server AnyEvent.pm, 596): a listing slower than that fails for
 * every client of the node, the GUI too.
 */
const LISTS_STORAGE: DaemonWorstCase = { ms: 30_000, from: 'sent' };

/** The protected routes (ROUTES[...].protected), each with its worst case. */
export const DAEMON_WORST_CASES = {
  clone: FORKS_A_TASK,
  start: FORKS_A_TASK,
  stop: FORKS_A_TASK,
  destroy: FORKS_A_TASK,
  resize: FORKS_A_TASK,
  deleteVolume: FORKS_A_TASK,
  // Qemu.pm update_vm (synchronous PUT): lock_config (10 s), then the
  // update itself; for a stopped VM vmconfig_apply_pending writes the
  // config and may regenerate the cloud-init drive.
  putConfig: { ms: LOCK_WAIT_MS + WORK_MS, from: 'sent' },
  // Agent.pm assert_agent_available: guest-ping with timeout => 3, then the
  // command at QMPClient.pm's default 5 s.
  agentInterfaces: { ms: 3_000 + 5_000 + MARGIN_MS, from: 'sent' },
  // Agent.pm file-write: three agent_cmd calls (file-open, file-write,
  // file-close), each assert_agent_available's ping and then the command.
  agentFileWrite: { ms: 3 * (3_000 + 5_000) + MARGIN_MS, from: 'sent' },
  statusCurrent: ASKS_QMP,
  nodeVms: ASKS_QMP,
  storages: LISTS_STORAGE,
  storageContent: LISTS_STORAGE,
  // Cluster.pm get_status: pmxcfs reads (cfs_update, clinfo, members, the
  // RRD dump), no lock, no QMP, no SSH.
  clusterStatus: { ms: MARGIN_MS, from: 'sent' },
  // Tasks.pm read_task_log and the status: /proc and one log file.
  taskStatus: { ms: MARGIN_MS, from: 'sent' },
  taskLog: { ms: MARGIN_MS, from: 'sent' },
  // pve-storage Status.pm upload, for another node: `ssh <node> pvesm
  // status --storage` (which activates the storage there: 10 s for NFS)
  // and `ssh <node> mkdir` before fork_worker; ssh gets no ConnectTimeout
  // (pve-cluster SSHInfo.pm), so 15 s is a chosen bound, not the source's.
  upload: { ms: 15_000, from: 'givenUp' },
} as const satisfies Partial<Record<RouteName, DaemonWorstCase>>;

export type ProtectedRouteName = keyof typeof DAEMON_WORST_CASES;

export function isProtectedRoute(route: RouteName): route is ProtectedRouteName {
  return Object.hasOwn(DAEMON_WORST_CASES, route);
}
