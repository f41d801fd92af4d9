// The shape of the loaded configuration (SPEC 7). src/config/schema.ts
// documents each key; src/config/index.ts loads and validates it.
import type { PoolConfig } from '../pools/types.js';

/** A template that lives on another node of the cluster. */
export interface TemplateRef {
  vmid: number;
  node: string;
}

/** A template for one node: a VMID on that node, or a template on another node cloned with `target`. */
export type NodeTemplate = number | TemplateRef;

/** What a lease runs at its expiry (SPEC 31): a delete, or a stop that keeps the name recorded. */
export type LeaseExpiryAction = 'delete' | 'stop';

/** Leases (SPEC 31): how long a created VM lives unless renewed. */
export interface LeaseConfig {
  /** ttlSeconds of a create that gives none; 0: no lease. */
  defaultSeconds: number;
  /** Longest ttl a create or a renewal may ask for, from now; 0: no bound but LEASE_CEILING_SECONDS. */
  maxSeconds: number;
  /** `vm.expiring` goes this long before the expiry. */
  warnSeconds: number;
  onExpiry: LeaseExpiryAction;
}

/**
 * How a create learns its VM is ready (SPEC 29): the guest agent's address
 * (`agent`, the default), the guest's own call to /v1/ready/<token>
 * (`phone-home`, cloud-init's phone_home module), a TCP connect to the
 * address (`tcp`), or the VM running (`none`).
 */
export type Readiness = 'agent' | 'phone-home' | 'tcp' | 'none';

/** A named image (SPEC 27): the template each node that serves it clones. */
export interface ImageConfig {
  name: string;
  description?: string;
  /** Node name to its template; a node not named here does not serve the image. */
  templates: Record<string, NodeTemplate>;
  /** SPEC 29; `agent` when absent. */
  readiness?: Readiness;
  /** The port `tcp` readiness connects to; 22 when absent. */
  readinessPort?: number;
  /** The image's default cloud-init user (SPEC 30): a warm pool's claim writes its `authorized_keys`; a pool's image needs one. */
  user?: string;
}

/**
 * An address pool (SPEC 29) for one bridge and VLAN tag: a create whose VM
 * lands on that network gets a static IPv4 address from it at the door.
 */
export interface NetworkPoolConfig {
  /** Names the pool in answers, metrics and errors. */
  name: string;
  bridge: string;
  /** Absent: the untagged network of the bridge. */
  vlanTag?: number;
  /** The subnet, `10.0.0.0/24`; the prefix length goes into the seed. */
  cidr: string;
  gateway?: string;
  dns: string[];
  /** First and last address handed out; the subnet's first and last host when absent. */
  first?: string;
  last?: string;
  /** Addresses never handed out (the gateway, the network and broadcast addresses never are). */
  exclude: string[];
  /** How long a freed address waits before it is handed out again. */
  reuseCooldownSeconds: number;
}

export interface NodeConfig {
  name: string;
  /**
   * The template cloned for VMs on this node: its VMID on this node, or a
   * template on another node cloned here with `target` (its disks must be
   * on shared storage, SPEC 23). Required unless `proxmox.images` is set;
   * without images it is the implicit image `default` (SPEC 27).
   */
  template?: NodeTemplate;
  /** Storage (directory type, ISO content) that holds the seed ISOs. */
  isoStorage: string;
  /** Target storage of the full clone; the template's when absent. */
  storage?: string;
  /** Bridge for net0; the template's when absent. */
  bridge?: string;
  /** VLAN tag added to net0 (1 to 4094). */
  vlanTag?: number;
  /** This node's own pveproxy (`https://pve2:8006`): its calls, uploads first, go there instead of proxmox.url (SPEC 28). */
  apiUrl?: string;
}

/**
 * One Proxmox VE cluster of several (SPEC 32, `proxmox.clusters`), its
 * fields filled from the single-cluster keys where the entry gives none.
 */
export interface ClusterConfig {
  /** 1 to 20 of a-z, 0-9, "-", starting with a letter: in records, marks, tags, Redis keys and metric labels. */
  name: string;
  /** As proxmox.url: the cluster's API, or "sim" for a simulator this process starts. */
  url: string;
  tokenFile: string;
  caFile: string;
  nodes: NodeConfig[];
  images: ImageConfig[];
  defaultImage: string;
  networks: NetworkPoolConfig[];
  maxRequestsPerSecond: number;
  daemonSlotsPerNode: number;
}

export interface Config {
  proxmox: {
    /**
     * Several clusters (SPEC 32), each resolved; empty: the one-cluster
     * form, made of the single-cluster keys (src/config/clusters.ts clustersOf).
     */
    clusters?: ClusterConfig[];
    /**
     * Set only on one cluster's view in the several-clusters form
     * (configForCluster): the provider marks and tags its VMs with it and
     * leaves other clusters' VMs alone. Absent: the one-cluster form.
     */
    clusterName?: string;
    url: string;
    tokenFile: string;
    caFile: string;
    tag: string;
    vmidRange: { min: number; max: number };
    installGuestAgent: boolean;
    seedJoliet: boolean;
    nodes: NodeConfig[];
    /** Empty: one implicit image `default` from nodes[].template. */
    images: ImageConfig[];
    /** Empty: the first of images (or `default`). */
    defaultImage: string;
    /** Address pools (SPEC 29); a network with none keeps DHCP. */
    networks: NetworkPoolConfig[];
    defaults: { cores: number; memoryMiB: number; diskGiB: number };
    limits: { maxCores: number; maxMemoryMiB: number; maxDiskGiB: number };
    /** 0: no limit. */
    maxRequestsPerSecond: number;
    requestBurst: number;
    /** 0: no limit. */
    daemonSlotsPerNode: number;
    /** Above 0, at most 1: multiplies the worst cases an abandoned call's slot is held for (sim.timeScale against the simulator). */
    daemonSlotWorstCaseScale: number;
  };
  /** Warm pools (SPEC 30): shapes kept created, booted and idle for creates to claim; their defaults filled. */
  pools: PoolConfig[];
  budgets: {
    pollMs: number;
    cloneSeconds: number;
    taskSeconds: number;
    runningSeconds: number;
    addressSeconds: number;
    firstAddressSeconds: number;
    lockTtlMs: number;
    connectMs: number;
    responseMs: number;
  };
  redis: {
    url: string;
    prefix: string;
    passwordFile: string;
    /** host:port of each; empty: one Redis (or Sentinel). */
    clusterNodes: string[];
    sentinel: { nodes: string[]; name: string };
    /** Replicas that must confirm an accept (WAIT); 0: none. */
    replicaAcks: number;
    replicaAckTimeoutMs: number;
  };
  jobs: {
    attempts: number;
    backoffMs: number;
    concurrency: number;
    shutdownGraceSeconds: number;
    keepCompletedCount: number;
    keepCompletedSeconds: number;
    keepFailedCount: number;
    keepFailedSeconds: number;
    acceptWhenUnhealthy: boolean;
  };
  worker: { metricsPort: number };
  registry: { tombstoneSeconds: number };
  leases: LeaseConfig;
  reconciler: { everySeconds: number; graceSeconds: number; recreateMissing: boolean; seedListingEvery: number };
  health: { everySeconds: number };
  http: {
    host: string;
    port: number;
    apiTokensFile: string;
    boardUsersFile: string;
    fingerprintKeyFile: string;
    authDisabled: boolean;
    metricsAuth: boolean;
    boardWritable: boolean;
    publicUrl: string;
    maxJobWaiters: number;
    eventStreamMaxSeconds: number;
    metricsCacheSeconds: number;
    requestTimeoutMs: number;
    idleTimeoutMs: number;
    keepAliveTimeoutMs: number;
    maxConnections: number;
  };
  webhooks: { url: string; secretFile: string; attempts: number; backoffMs: number; timeoutMs: number; concurrency: number };
  log: { level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'; pretty: boolean };
  sim: {
    host: string;
    port: number;
    /** Simulated clusters `npm start` runs with proxmox.url "sim" and no proxmox.clusters (SPEC 32): 1 is the one-cluster form. */
    clusters: number;
    nodes: string[];
    vms: number;
    timeScale: number;
    latencyMs: number;
    cloneSeconds: number;
    taskSeconds: number;
    agentSeconds: number;
    proxyWorkers: number;
    daemonWorkers: number;
    requestCostMs: number;
    requestCostPerKibMs: number;
    statdSeconds: number;
    guestPorts: number[];
    tlsCert: string;
    tlsKey: string;
    stateFile: string;
    requestTimeoutMs: number;
    idleTimeoutMs: number;
    maxConnections: number;
  };
}
