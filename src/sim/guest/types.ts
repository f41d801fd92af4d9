// What the simulated guest took from its seed (SPEC 29), kept on the VM.

export interface StaticAddress {
  address: string;
  prefixLength: number;
}

export interface PhoneHomeRequest {
  /** As written; `$INSTANCE_ID` is filled in when the guest calls. */
  url: string;
  /** The keys to post, in order. */
  post: string[];
  tries: number;
}

export interface GuestSeed {
  /** The volume it was read from; undefined when no CD-ROM held a seed. */
  volid?: string;
  instanceId?: string;
  hostname?: string;
  /** net0's address from network-config; undefined: DHCP. */
  staticAddress?: StaticAddress;
  phoneHome?: PhoneHomeRequest;
  /** What the guest could not take, and why (cloud-init would warn and boot on). */
  problems: string[];
}
