// The create job's data (SPEC 1). Callers may leave out uid (the producer
// draws a random one) and the sizes (config defaults); the stored job
// always has uid and the generation the producer recorded (SPEC 2).
import { BRIDGE, TEXT_MAX_BYTES, generationField, nameField, uidField } from './fields.js';
import type { FieldSpec, JobFields } from './fields.js';

export interface CreateJobInput {
  name: string;
  uid?: string;
  node?: string;
  cores: number;
  memoryMiB: number;
  diskGiB: number;
  userData?: string;
  networkConfig?: string;
  vlanTag?: number;
  bridge?: string;
  waitForAddress: boolean;
}

export interface CreateJobData extends CreateJobInput {
  uid: string;
  generation: number;
}

const text = (description: string): FieldSpec => ({
  required: false,
  rule: { kind: 'string', description, maxBytes: TEXT_MAX_BYTES },
});

export const createInputFields: JobFields = {
  name: nameField,
  uid: uidField,
  node: {
    required: false,
    rule: { kind: 'string', description: 'Configured node to place the VM on; the one with most free memory when absent', oneOf: (l) => l.nodes },
  },
  cores: {
    required: true,
    default: (l) => l.defaults.cores,
    rule: { kind: 'integer', description: 'Cores', min: 1, max: (l) => l.limits.maxCores },
  },
  memoryMiB: {
    required: true,
    default: (l) => l.defaults.memoryMiB,
    rule: { kind: 'integer', description: 'Memory in MiB', min: 1, max: (l) => l.limits.maxMemoryMiB },
  },
  diskGiB: {
    required: true,
    default: (l) => l.defaults.diskGiB,
    rule: { kind: 'integer', description: 'Boot disk size in GiB', min: 1, max: (l) => l.limits.maxDiskGiB },
  },
  userData: text('cloud-init user-data (UTF-8, at most 64 KiB)'),
  networkConfig: text('cloud-init network-config (UTF-8, at most 64 KiB)'),
  vlanTag: { required: false, rule: { kind: 'integer', description: 'VLAN tag of net0', min: 1, max: 4094 } },
  bridge: {
    required: false,
    rule: { kind: 'string', description: 'Bridge of net0', pattern: BRIDGE, patternText: 'a bridge name (a letter, then up to 14 of A-Z a-z 0-9 _ . -)' },
  },
  waitForAddress: {
    required: true,
    default: () => true,
    rule: { kind: 'boolean', description: 'End the job only when the guest agent reports an address (SPEC 10)' },
  },
};

export const createStoredFields: JobFields = {
  ...createInputFields,
  uid: { ...uidField, required: true },
  generation: generationField,
};
