// pvestatd's RRD as /cluster/resources reads it (audit 7, 3.3, 3.4),
// modelled lazily: no timer per VM; a listing works out what the last
// cycle wrote. What a cycle writes is vmstatus's view: `name` is the
// config's or `VM <vmid>` (QemuServer.pm vmstatus), `status` stopped or
// running, `template` 0 or 1. pmxcfs keeps the entries by VMID and drops
// one 5 minutes after its last write (status.c rrd_entry_is_old), so a
// destroyed VM's sample outlives it, and a new VM at its VMID shows the old
// name and status until pvestatd samples the new one.
import { bootDiskBytes, cpuCount, memoryBytes, type SimVm, type StatdSample } from './state.js';

/** pmxcfs drops an RRD entry this long after its last write (before timeScale). */
export const RRD_KEEP_SECONDS = 300;

/** The name vmstatus gives a config without one (`$conf->{name} || "VM $vmid"`). */
export function vmstatusName(vmid: number, name: string | number | undefined): string {
  const text = name === undefined ? '' : String(name);
  return text !== '' && text !== '0' ? text : `VM ${vmid}`;
}

/** What pvestatd writes for a VM: status, name, template and sizes as they are now (F14: paused is `running`). */
export function sampleOf(vm: SimVm): StatdSample {
  const out: StatdSample = {
    name: vmstatusName(vm.vmid, vm.config.name),
    status: vm.status,
    template: vm.config.template === 1 ? 1 : 0,
    maxcpu: cpuCount(vm),
    maxmem: memoryBytes(vm),
    maxdisk: bootDiskBytes(vm),
  };
  if (vm.status === 'running' && vm.startedAt !== undefined) out.startedAt = vm.startedAt;
  return out;
}

/**
 * A sample of clone_vm's temporary config (`# qmclone temporary file`,
 * `lock: clone`, Qemu.pm clone_vm): no name, no template flag, no disks,
 * vmstatus's defaults of one CPU and 512 MiB.
 */
export function temporaryConfigSample(vmid: number): StatdSample {
  const sample: StatdSample = { name: `VM ${vmid}`, status: 'stopped', template: 0, maxcpu: 1, maxmem: 512 * 1024 * 1024, maxdisk: 0 };
  temporarySamples.add(sample);
  return sample;
}

/** The samples temporaryConfigSample made, so one is not written twice. */
const temporarySamples = new WeakSet<StatdSample>();

export interface SampleClock {
  /** The start of the cycle the listing sees (ms). */
  sampleAt: number;
  /**
   * True when pvestatd runs in cycles (sim.statdSeconds > 0). Without
   * cycles every listing is current, but a clone in progress is still
   * unsampled (F8's nameless `unknown`) and no destroyed VM's sample
   * lingers.
   */
  cycles: boolean;
}

/** True while the clone's temporary config was in place at the cycle start. */
function inTemporaryConfig(vm: SimVm, sampleAt: number): boolean {
  const phase = vm.temporaryConfig;
  return phase !== undefined && phase.from <= sampleAt && sampleAt < phase.until;
}

/**
 * Brings `vm.rrd` up to what the cycle starting at `sampleAt` wrote. A
 * clone is sampled like any VM when cycles run: its temporary config as
 * `VM <vmid>`, then (after its first disk) its real name, status stopped.
 * A change after the cycle start waits for the next cycle.
 */
export function refreshSample(vm: SimVm, clock: SampleClock): void {
  if (clock.cycles && inTemporaryConfig(vm, clock.sampleAt)) {
    if (vm.rrd === undefined || !temporarySamples.has(vm.rrd)) {
      vm.rrd = temporaryConfigSample(vm.vmid);
      vm.cachedEntry = undefined;
    }
    return;
  }
  if (!vm.statdStale || (vm.cloning && !clock.cycles) || vm.changedAt > clock.sampleAt) return;
  vm.rrd = sampleOf(vm);
  vm.statdStale = false;
  vm.cachedEntry = undefined;
}

/** A destroyed VM's last sample, as pmxcfs keeps it at its VMID. */
export interface LingeringSample {
  sample: StatdSample;
  /** When pvestatd last wrote it (ms): the last cycle the VM was there for. */
  writtenAt: number;
}

/**
 * The samples of destroyed VMs by VMID, until pmxcfs drops them. A new VM
 * at such a VMID shows the lingering sample until it has its own.
 */
export class LingeringSamples {
  private readonly byVmid = new Map<number, LingeringSample>();

  /** Keeps the VM's last sample as of its removal; a VM never sampled leaves what was there before. */
  keep(vm: SimVm, writtenAt: number): void {
    if (vm.rrd !== undefined) this.byVmid.set(vm.vmid, { sample: vm.rrd, writtenAt });
  }

  /** The sample a VM without one of its own shows (call expire first). */
  at(vmid: number): StatdSample | undefined {
    return this.byVmid.get(vmid)?.sample;
  }

  /** Drops every sample pmxcfs has dropped by now: written more than keepMs ago (each listing runs it). */
  expire(now: number, keepMs: number): void {
    for (const [vmid, found] of this.byVmid) if (now - found.writtenAt > keepMs) this.byVmid.delete(vmid);
  }

  clear(): void {
    this.byVmid.clear();
  }
}
