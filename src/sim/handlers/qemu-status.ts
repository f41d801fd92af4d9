// GET /nodes/{node}/qemu/{vmid}/status/current (F14: paused is
// `status: running, qmpstatus: paused`) and the guest agent's
// network-get-interfaces (F5's three messages, F21's answer).
import { dieError } from '../answer-error.js';
import { agentEnabled, bootDiskBytes, cpuCount, memoryBytes, type SimVm } from '../state.js';
import { vmstatusName } from '../statd.js';
import { texts } from '../texts.js';
import { flag, param, vmidParam, type Handler } from './context.js';

export const statusCurrent: Handler = (ctx) => {
  const now = ctx.sim.now();
  const vm = ctx.sim.state.vm(param(ctx, 'node'), vmidParam(ctx));
  const running = vm.status === 'running';
  const answer: Record<string, unknown> = {
    status: vm.status,
    qmpstatus: running ? (vm.paused ? 'paused' : 'running') : 'stopped',
    vmid: vm.vmid,
    name: vmstatusName(vm.vmid, vm.config.name),
    uptime: running && vm.startedAt !== undefined ? Math.floor((now - vm.startedAt) / 1000) : 0,
    cpus: cpuCount(vm),
    cpu: running ? 0.0137 : 0,
    maxmem: memoryBytes(vm),
    mem: running ? Math.floor(memoryBytes(vm) * 0.14) : 0,
    maxdisk: bootDiskBytes(vm),
    disk: 0,
    netin: 0,
    netout: 0,
    diskread: 0,
    diskwrite: 0,
    ha: { managed: 0 },
  };
  // vmstatus sets these only when there is something to say (audit 12d).
  if (agentEnabled(vm)) answer.agent = 1;
  if (typeof vm.config.tags === 'string' && vm.config.tags !== '') answer.tags = vm.config.tags;
  if (typeof vm.config.lock === 'string') answer.lock = vm.config.lock;
  if (vm.config.template === 1) answer.template = 1;
  return answer;
};

/**
 * GET /nodes/{node}/qemu (vmlist): every VM on the node as vmstatus gives
 * it; with `full` the running ones carry `qmpstatus` from QMP, the others
 * their `status` (qemu-server's vmstatus). Audit per VM is not modelled:
 * the simulator's tokens see every VM. With `full` each running VM's QMP
 * is asked (query-status and five more commands), every VM of the node,
 * not only the caller's: the daemon model charges each one a call's base in pvedaemon.
 */
export const nodeVms: Handler = (ctx) => {
  const node = ctx.sim.state.node(param(ctx, 'node')).node;
  const full = flag(ctx, 'full');
  const answer: Record<string, unknown>[] = [];
  for (const vm of ctx.sim.state.allVms()) {
    if (vm.node !== node) continue;
    const running = vm.status === 'running';
    const entry: Record<string, unknown> = {
      vmid: vm.vmid,
      status: vm.status,
      name: vmstatusName(vm.vmid, vm.config.name),
      cpus: cpuCount(vm),
      maxmem: memoryBytes(vm),
      maxdisk: bootDiskBytes(vm),
      uptime: running && vm.startedAt !== undefined ? Math.floor((ctx.sim.now() - vm.startedAt) / 1000) : 0,
    };
    if (full) entry.qmpstatus = running ? (vm.paused ? 'paused' : 'running') : vm.status;
    if (full && running) ctx.work.qmpVms += 1;
    if (typeof vm.config.lock === 'string') entry.lock = vm.config.lock;
    if (vm.config.template === 1) entry.template = 1;
    answer.push(entry);
  }
  return answer;
};

function hardwareAddress(vm: SimVm): string {
  const mac = /([0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5})/.exec(String(vm.config.net0 ?? ''))?.[1];
  return (mac ?? 'bc:24:11:00:00:01').toLowerCase();
}

/** A stable private IPv4 per VMID (10.x.y.z, never .0 or .1). */
export function guestAddress(vmid: number): string {
  return `10.${(vmid >> 14) & 63}.${(vmid >> 6) & 255}.${(vmid & 63) + 2}`;
}

function linkLocal(mac: string): string {
  const b = mac.split(':').map((h) => parseInt(h, 16));
  const eui = [(b[0] ?? 0) ^ 2, b[1] ?? 0, b[2] ?? 0, 0xff, 0xfe, b[3] ?? 0, b[4] ?? 0, b[5] ?? 0];
  const groups = [0, 2, 4, 6].map((i) => (((eui[i] ?? 0) << 8) | (eui[i + 1] ?? 0)).toString(16));
  return `fe80::${groups.join(':')}`;
}

/** qemu-server Agent.pm: `mon_cmd($vmid, "guest-ping", timeout => 3)`. */
export const GUEST_PING_TIMEOUT_SECONDS = 3;

export const agentInterfaces: Handler = (ctx) => {
  const vm = ctx.sim.state.vm(param(ctx, 'node'), vmidParam(ctx));
  // assert_agent_available's order (audit 6): an `agent` line at all, the VM running, then the
  // agent's ping, which an agent switched off with `agent: 0` never answers.
  if (vm.config.agent === undefined) throw dieError(texts.agentNotConfigured);
  if (vm.status !== 'running') throw dieError(texts.vmNotRunning(vm.vmid));
  const upFor = ctx.sim.now() - (vm.startedAt ?? ctx.sim.now());
  // F21: the agent answers some time after start (it is installed at first boot); a paused guest cannot answer.
  if (!agentEnabled(vm)) throw dieError(texts.agentNotRunning);
  if (vm.paused || upFor < ctx.sim.scaled(ctx.sim.options.agentSeconds)) {
    // The qga socket is there and nothing answers: guest-ping waits out its timeout in the
    // worker (Agent.pm qga_check_running, SPEC 28). With the agent off there is no socket: at once.
    ctx.work.heldSeconds += GUEST_PING_TIMEOUT_SECONDS;
    throw dieError(texts.agentNotRunning);
  }
  const mac = hardwareAddress(vm);
  return {
    result: [
      {
        name: 'lo',
        'hardware-address': '00:00:00:00:00:00',
        'ip-addresses': [
          { 'ip-address': '127.0.0.1', 'ip-address-type': 'ipv4', prefix: 8 },
          { 'ip-address': '::1', 'ip-address-type': 'ipv6', prefix: 128 },
        ],
      },
      {
        name: 'ens18',
        'hardware-address': mac,
        'ip-addresses': [
          { 'ip-address': guestAddress(vm.vmid), 'ip-address-type': 'ipv4', prefix: 24 },
          { 'ip-address': linkLocal(mac), 'ip-address-type': 'ipv6', prefix: 64 },
        ],
      },
    ],
  };
};
