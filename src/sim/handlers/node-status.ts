// GET /nodes/{node}/status as pve-manager PVE/API2/Nodes.pm `status`
// (353-509, read at 14a22df) builds it: every node is the host of the
// seeds' captures (node_status.json), an AMD Ryzen 7 5800X with 64 GiB.
import { DISK, UPTIME, usedMemory } from './cluster.js';
import type { Handler } from './context.js';

/** POSIX::uname of the host (Nodes.pm get_current_kernel_info 315-326). */
const KERNEL = {
  sysname: 'Linux',
  release: '7.0.14-17-pve',
  version: '#1 SMP PREEMPT_DYNAMIC PMX 7.0.14-17 (2026-08-28T10:12Z)',
  machine: 'x86_64',
};

/** /proc/cpuinfo's `flags` line of a Zen 3 host; `svm` in it is what makes `hvm` true. */
const CPU_FLAGS =
  'fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm ' +
  'constant_tsc rep_good nopl nonstop_tsc cpuid extd_apicid aperfmperf rapl pni pclmulqdq monitor ssse3 fma cx16 sse4_1 sse4_2 movbe popcnt aes xsave ' +
  'avx f16c rdrand lahf_lm cmp_legacy svm extapic cr8_legacy abm sse4a misalignsse 3dnowprefetch osvw ibs skinit wdt tce topoext perfctr_core perfctr_nb ' +
  'bpext perfctr_llc mwaitx cpb cat_l3 cdp_l3 hw_pstate ssbd mba ibrs ibpb stibp vmmcall fsgsbase bmi1 avx2 smep bmi2 erms invpcid cqm rdt_a rdseed adx ' +
  'smap clflushopt clwb sha_ni xsaveopt xsavec xgetbv1 xsaves cqm_llc cqm_occup_llc cqm_mbm_total cqm_mbm_local clzero irperf xsaveerptr rdpru wbnoinvd ' +
  'arat npt lbrv svm_lock nrip_save tsc_scale vmcb_clean flushbyasid decodeassists pausefilter pfthreshold avic v_vmsave_vmload vgif v_spec_ctrl umip ' +
  'pku ospke vaes vpclmulqdq rdpid overflow_recov succor smca fsrm';

const SWAP_BYTES = 8_589_930_496;

/**
 * pve-common ProcFSTools.pm read_cpuinfo (74-146, read at f665029): the
 * values it read from /proc/cpuinfo are strings (`mhz`, `family`, the `hvm`
 * match), its defaults and counts numbers.
 */
function cpuinfo(cpus: number): Record<string, unknown> {
  return {
    user_hz: 100,
    vendor: 'AuthenticAMD',
    family: '25',
    model: 'AMD Ryzen 7 5800X 8-Core Processor',
    mhz: '3800.000',
    cpus,
    sockets: 1,
    cores: cpus / 2,
    flags: CPU_FLAGS,
    hvm: '1',
  };
}

export const nodeStatus: Handler = ({ sim, params }) => {
  const node = sim.state.node(params.node ?? '');
  const used = Math.min(usedMemory(sim.state, node.node), node.maxmem);
  return {
    uptime: UPTIME,
    idle: 0,
    loadavg: ['0.21', '0.18', '0.12'],
    // "$sysname $release $version", for legacy compat (Nodes.pm 318): no machine.
    kversion: `${KERNEL.sysname} ${KERNEL.release} ${KERNEL.version}`,
    'current-kernel': KERNEL,
    // get_boot_mode_info (329-350): an EFI boot without Secure Boot.
    'boot-info': { mode: 'efi', secureboot: 0 },
    cpuinfo: cpuinfo(node.maxcpu),
    cpu: 0.0418,
    wait: 0.0012,
    memory: { free: node.maxmem - used, total: node.maxmem, available: node.maxmem - used, used },
    // read_meminfo's memshared: pages KSM merged (none here).
    ksm: { shared: 0 },
    swap: { free: SWAP_BYTES, total: SWAP_BYTES, used: 0 },
    pveversion: 'pve-manager/9.2.20/49318c671b82f31e',
    rootfs: { total: DISK.maxdisk, avail: DISK.maxdisk - DISK.disk, used: DISK.disk, free: DISK.maxdisk - DISK.disk },
  };
};
