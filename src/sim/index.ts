// The Proxmox VE simulator (SPEC 8). Nothing in src/provider imports it.
export { startSimulator, type RunningSimulator, type StartOptions } from './server.js';
export type { FaultSet } from './faults.js';
export { guestAddress } from './handlers/qemu-agent.js';
export type { SimStorageSpec } from './storage-option.js';
