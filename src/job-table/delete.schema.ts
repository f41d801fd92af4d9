// The delete job's data (SPEC 1): with a uid, only the VM whose mark
// carries it is touched (SPEC 15).
import { generationField, nameField, tenantField, uidField } from './fields.js';
import type { DataOf, FieldSpec } from './fields.js';
import { expiryFields } from './lease.schema.js';
import { CLUSTER_NAME_RE } from '../config/name-patterns.js';

export const deleteInputFields = { name: nameField, uid: uidField } satisfies Record<string, FieldSpec>;

/**
 * The cluster the delete runs in (SPEC 32, several-clusters form): the
 * sweep's delete of a VM it found there, whose name's record names
 * another cluster or none. Only the service writes it; absent: the name's
 * record's cluster.
 */
const deleteClusterField = {
  presence: 'optional',
  rule: { kind: 'string', description: 'The Proxmox cluster the VM to delete is in (SPEC 32); set by the reconciler', maxBytes: 20, pattern: CLUSTER_NAME_RE, patternText: 'a cluster name: 1 to 20 of a-z, 0-9 and "-", starting with a letter' },
} satisfies FieldSpec;

// A lease's expiry (SPEC 31) adds its delete with the lease's expiresAt; a caller's has none.
export const deleteStoredFields = { ...deleteInputFields, generation: generationField, tenant: tenantField, cluster: deleteClusterField, ...expiryFields } satisfies Record<string, FieldSpec>;

export type DeleteJobInput = DataOf<typeof deleteInputFields>;
export type DeleteJobData = DataOf<typeof deleteStoredFields>;
