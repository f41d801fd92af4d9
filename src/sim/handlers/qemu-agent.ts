// GET /nodes/{node}/qemu/{vmid}/agent/network-get-interfaces: F5's three
// messages, then what the guest agent answers (F21). qemu-server passes the
// agent's `guest-network-get-interfaces` result through as `result`
// (API2/Qemu/Agent.pm, `agent_cmd`); QEMU's guest agent gives each
// interface its addresses and `statistics` (qga/qapi-schema.json
// GuestNetworkInterface, GuestNetworkInterfaceStat, QEMU 2.11 and later).
// A VM planted with `guestInterfaces` (POST /_sim/vms) answers those. The
// NIC's IPv4 address is the one its seed's network-config set (SPEC 29),
// else a DHCP-like one per VMID.
import { dieError } from '../answer-error.js';
import { net0Mac } from '../mac.js';
import { agentEnabled, type SimVm } from '../state.js';
import { texts } from '../texts.js';
import { param, vmidParam, type Handler, type HandlerContext } from './context.js';

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

/**
 * Agent.pm assert_agent_available, which every agent call runs first
 * (audit 6): an `agent` line at all, the VM running, then the agent's
 * ping, which an agent switched off with `agent: 0` never answers. The
 * VM when its agent answers; how long it has been up.
 */
export function agentUp(ctx: HandlerContext): { vm: SimVm; upFor: number } {
  const vm = ctx.sim.state.vm(param(ctx, 'node'), vmidParam(ctx));
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
  return { vm, upFor };
}

export const agentInterfaces: Handler = (ctx) => {
  const { vm, upFor } = agentUp(ctx);
  if (vm.guestInterfaces !== undefined) return { result: vm.guestInterfaces };
  const mac = net0Mac(vm.config);
  const ipv4 = vm.seed?.staticAddress ?? { address: guestAddress(vm.vmid), prefixLength: 24 };
  const upSeconds = Math.floor(upFor / 1000);
  return {
    result: [
      {
        name: 'lo',
        'hardware-address': '00:00:00:00:00:00',
        'ip-addresses': [
          { 'ip-address': '127.0.0.1', 'ip-address-type': 'ipv4', prefix: 8 },
          { 'ip-address': '::1', 'ip-address-type': 'ipv6', prefix: 128 },
        ],
        statistics: loopbackStatistics(upSeconds),
      },
      {
        name: 'ens18',
        'hardware-address': mac,
        'ip-addresses': [
          { 'ip-address': ipv4.address, 'ip-address-type': 'ipv4', prefix: ipv4.prefixLength },
          { 'ip-address': linkLocal(mac), 'ip-address-type': 'ipv6', prefix: 64 },
        ],
        statistics: nicStatistics(upSeconds),
      },
    ],
  };
};

/** GuestNetworkInterfaceStat: made-up counters that grow with the guest's uptime. */
function statistics(rxPackets: number, rxBytes: number, txPackets: number, txBytes: number): Record<string, number> {
  return {
    'rx-bytes': rxBytes,
    'rx-dropped': 0,
    'rx-errs': 0,
    'rx-packets': rxPackets,
    'tx-bytes': txBytes,
    'tx-dropped': 0,
    'tx-errs': 0,
    'tx-packets': txPackets,
  };
}

/** What the loopback sends it receives. */
function loopbackStatistics(upSeconds: number): Record<string, number> {
  const packets = 160 + Math.floor(upSeconds / 10);
  return statistics(packets, packets * 72, packets, packets * 72);
}

function nicStatistics(upSeconds: number): Record<string, number> {
  const rx = 2000 + 8 * upSeconds;
  const tx = 400 + 2 * upSeconds;
  return statistics(rx, rx * 800, tx, tx * 100);
}
