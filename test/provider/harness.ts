// Builds a provider on a FakeProxmox with a fake clock, and VMs of ours.
// Its deps come from createProviderDeps, as the worker's do: the same
// waits (boards, shared reads, learned times) under every test.
import { createProviderDeps, type ProviderConfig, type ProviderDeps, type ProviderOptions } from '../../src/provider/deps.js';
import type { OperationContext, Provider } from '../../src/provider/types.js';
import type { SeedRecords } from '../../src/provider/seed-records.js';
import type { ReadySignals } from '../../src/provider/ready-signals.js';
import type { Sleep } from '../../src/provider/waits/sleep.js';
import type { ImageConfig, NodeConfig } from '../../src/config/types.js';
import { providerOn } from '../../src/provider/provider.js';
import { formatMark } from '../../src/provider/mark.js';
import { vmidForUid } from '../../src/provider/vmid.js';
import { silentLogger, type Logger } from '../../src/log.js';
import { FakeProxmox, type FakeVm, type FakeVmInit } from '../fakes/fake-proxmox.js';
import { FakeClock } from '../fakes/clock.js';
import { fixtureData } from '../support/fixtures.js';
import type { VmConfig } from '../../src/proxmox/api.js';
import { configForCluster, resolveCluster } from '../../src/config/clusters.js';

export const RANGE = { min: 100000, max: 199999 };
export const TAG = 'pve_provisioner';

export function testConfig(nodes: NodeConfig[] = [{ name: 'pv1-1', template: 9001, isoStorage: 'proxy-seeds' }], images: ImageConfig[] = [], defaultImage = ''): ProviderConfig {
  return {
    proxmox: {
      url: 'https://pve.invalid:8006',
      tokenFile: '/nonexistent/token',
      caFile: '/nonexistent/ca.pem',
      tag: TAG,
      vmidRange: RANGE,
      installGuestAgent: true,
      seedJoliet: false,
      networks: [],
      nodes,
      images,
      defaultImage,
      defaults: { cores: 2, memoryMiB: 2048, diskGiB: 10 },
      limits: { maxCores: 16, maxMemoryMiB: 65536, maxDiskGiB: 500 },
      maxRequestsPerSecond: 0,
      requestBurst: 0,
      daemonSlotsPerNode: 0,
      daemonSlotWorstCaseScale: 1,
    },
    budgets: { pollMs: 1000, cloneSeconds: 120, taskSeconds: 120, runningSeconds: 60, addressSeconds: 300, firstAddressSeconds: 30, lockTtlMs: 30000, connectMs: 10000, responseMs: 60000 },
  };
}

/**
 * SPEC 32: cluster `name`'s view of a config of several clusters (the
 * first of `names` is the first cluster), each of the test config's
 * single keys.
 */
export function clusterView(name: string, names: readonly string[] = ['east', 'west'], base: ProviderConfig = testConfig()): ProviderConfig {
  const clusters = names.map((cluster) => resolveCluster({ name: cluster, url: `https://${cluster}.invalid:8006` }, base.proxmox));
  const cluster = clusters.find((c) => c.name === name);
  if (cluster === undefined) throw new Error(`no cluster ${name} among ${names.join(', ')}`);
  return configForCluster({ ...base, proxmox: { ...base.proxmox, clusters } }, cluster);
}

export interface Harness {
  pve: FakeProxmox;
  clock: FakeClock;
  config: ProviderConfig;
  provider: Provider;
  lines: string[];
  ctx: OperationContext;
  /** The same parts the provider runs on (its waits included), for testing helpers directly. */
  deps: ProviderDeps;
}

export interface HarnessOptions {
  pve?: FakeProxmox;
  config?: ProviderConfig;
  logger?: Logger;
  seedRecords?: SeedRecords;
  /** Phone-home tokens and signals (SPEC 29). */
  readySignals?: ReadySignals;
  /** Around the fake clock's sleep: runs first, then that sleep (a test acts while the provider waits). */
  beforeSleep?: (ms: number) => void | Promise<void>;
}

export function harness(options: HarnessOptions = {}): Harness {
  const pve = options.pve ?? new FakeProxmox();
  const clock = new FakeClock();
  const config = options.config ?? testConfig();
  const logger = options.logger ?? silentLogger();
  const { beforeSleep } = options;
  const sleep: Sleep = beforeSleep === undefined ? clock.sleep : async (ms, signal) => {
    await beforeSleep(ms);
    await clock.sleep(ms, signal);
  };
  const deps = createProviderDeps({
    api: pve,
    config,
    logger,
    now: clock.now,
    sleep,
    ...(options.seedRecords ? { seedRecords: options.seedRecords } : {}),
    ...(options.readySignals ? { readySignals: options.readySignals } : {}),
  });
  const provider = providerOn(deps);
  const lines: string[] = [];
  const ctx: OperationContext = { signal: new AbortController().signal, log: (l) => void lines.push(l) };
  return { pve, clock, config, provider, lines, ctx, deps };
}

/**
 * Deps built as the harness's are (createProviderDeps, the harness's clock
 * and logger) over another seam, sleep or config: with waits of their own
 * on those, as a provider built on them would have, never the harness's
 * waits on its FakeProxmox.
 */
export function depsWith(h: Harness, parts: Partial<Pick<ProviderOptions, 'api' | 'sleep' | 'config'>>): ProviderDeps {
  const { logger, seedRecords } = h.deps;
  return createProviderDeps({ api: h.pve, config: h.config, logger, now: h.clock.now, sleep: h.clock.sleep, ...(seedRecords ? { seedRecords } : {}), ...parts });
}

const CLONE = fixtureData<VmConfig>('config_clone_ours');

/** The sizes a create of this spec wrote into its VM (SPEC 13 steps 5 and 6), as Proxmox answers them: a running VM of ours had them. */
export function sizedLike(spec: { cores: number; memoryMiB: number; diskGiB: number }): VmConfig {
  return { cores: spec.cores, memory: String(spec.memoryMiB), scsi0: String(CLONE.scsi0).replace(/size=[^,]+/, `size=${spec.diskGiB}G`) };
}

/** A finished clone of ours at the uid's VMID (or vmid), with our tag. */
export function addOurVm(
  pve: FakeProxmox,
  name: string,
  uid: string,
  init: Partial<FakeVmInit> & { config?: VmConfig } = {},
): FakeVm {
  const vmid = init.vmid ?? vmidForUid(uid, RANGE);
  return pve.addVm({
    node: 'pv1-1',
    ...init,
    vmid,
    config: {
      ...CLONE,
      name,
      description: formatMark(uid, new Date('2026-11-30T09:00:00Z')),
      tags: `debian;${TAG}`,
      ...init.config,
    },
  });
}

