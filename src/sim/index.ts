// The Proxmox VE simulator (SPEC 8). Nothing in src/provider imports it.
export { startSimulator, SIM_DEFAULTS, type RunningSimulator, type StartOptions } from './server.js';
export { Simulator, type SimulatorOptions, type RecordedRequest } from './simulator.js';
export type { FaultSet, ErrorFault, DropFault, TaskFailure } from './faults.js';
export { guestAddress } from './handlers/qemu-status.js';
