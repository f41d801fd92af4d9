// The OpenAPI document's part on address pools (SPEC 29): the address
// fields a create's answer and every view of a VM carry. The create job's
// data documents its lease from the field table (create.schema.ts).

type Schema = Record<string, unknown>;

/** A VM's leased address as the create's answer, GET /vms/{name} and the listing show it; absent: DHCP. */
export const addressViewProperties: Record<string, Schema> = {
  address: {
    type: 'string',
    description: "On a network with an address pool (proxmox.networks): the VM's static IPv4 address, leased when the create was accepted, before the VM exists; a repeat of the create gets the same one. Absent: the network has no pool and the VM takes DHCP (lastKnown.address is what it reported).",
  },
  addressPool: { type: 'string', description: 'The address pool the address came from (proxmox.networks[].name).' },
};

/** POST /vms's 409 in words: a name conflict, or a pool with no free address. */
export const CREATE_CONFLICT_TEXT =
  'The name is present with another uid, or with another spec in a field its VM cannot take in place (fields names each such field: any but cores, memoryMiB and a larger diskGiB); ' +
  'or (error PoolExhausted, with pool and network) the address pool of the VM\'s network has no free address: nothing was recorded.';
