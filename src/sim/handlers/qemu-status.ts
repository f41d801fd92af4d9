// GET /nodes/{node}/qemu/{vmid}/status/current (F14: paused is
// `status: running, qmpstatus: paused`) and GET /nodes/{node}/qemu.
import { agentEnabled, bootDiskBytes, cpuCount, memoryBytes } from '../state.js';
import { vmstatusName } from '../statd.js';
import { qmpKeys, vmstatusKeys } from '../vmstatus.js';
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
    // vmstatus: 0, then the cgroup's usage while running, which `mem` starts from (QemuServer.pm 2588, 2637-2639).
    memhost: running ? Math.floor(memoryBytes(vm) * 0.14) : 0,
    maxdisk: bootDiskBytes(vm),
    disk: 0,
    netin: 0,
    netout: 0,
    diskread: 0,
    diskwrite: 0,
    ha: { managed: 0 },
  };
  // vmstatus sets these only when there is something to say (audit 12d); vm_status asks it with $full (API2/Qemu.pm 3475).
  if (agentEnabled(vm)) answer.agent = 1;
  if (typeof vm.config.lock === 'string') answer.lock = vm.config.lock;
  if (vm.config.template === 1) answer.template = 1;
  return { ...answer, ...vmstatusKeys(vm), ...qmpKeys(vm) };
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
    answer.push({ ...entry, ...vmstatusKeys(vm), ...(full ? qmpKeys(vm) : {}) });
  }
  return answer;
};
