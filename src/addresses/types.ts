// An address lease (SPEC 29): the static IPv4 address a name's VM gets
// from a pool, taken at the door and recorded on the name, so the 202
// answer, every view of the VM and the seed's network-config all carry
// the same one. Types only.

export interface AddressLease {
  /** The pool's name (proxmox.networks[].name). */
  pool: string;
  /** Dotted quad. */
  address: string;
  /** The pool's prefix length (its cidr's `/n`). */
  prefixLength: number;
  gateway?: string;
  dns: string[];
  /** The uid the lease is bound to: a delete or sweep of that uid's VM ends it. */
  uid: string;
  /** RFC 3339: when the door took it. */
  takenAt: string;
}
