// What a create refuses for its readiness and address lease (SPEC 29),
// as Permanent with the reason, before any Proxmox call: a lease and a
// networkConfig of its own, a lease that is not an IPv4 address and
// prefix, a phone-home image with nowhere to call or no token store, a
// waiting `tcp` create without a leased address to connect to, or with a
// non-loopback one while proxmox.url is the simulator (nothing here may
// connect off this machine).
import type { ResolvedImage } from '../config/images.js';
import { isSimulatorUrl } from '../config/url-formats.js';
import { ipv4ToNumber, isLoopbackIpv4 } from '../addresses/ipv4.js';
import type { ProviderDeps } from './deps.js';
import { permanent } from './errors.js';
import type { CreateSpec } from './types.js';

export function refuseUnready(deps: Pick<ProviderDeps, 'config' | 'readySignals'>, spec: CreateSpec, image: Pick<ResolvedImage, 'name' | 'readiness' | 'readinessPort'>): void {
  const lease = spec.address;
  const of = `create ${spec.name}`;
  if (lease !== undefined) {
    if (spec.networkConfig !== undefined) {
      throw permanent(`${of}: networkConfig is given, but the VM's address ${lease.address} comes from pool ${lease.pool}, whose network-config the seed carries; a create on a pooled network must not bring its own`);
    }
    if (ipv4ToNumber(lease.address) === undefined || !Number.isInteger(lease.prefixLength) || lease.prefixLength < 0 || lease.prefixLength > 32) {
      throw permanent(`${of}: its address lease (${JSON.stringify(lease.address)}/${JSON.stringify(lease.prefixLength)} from pool ${lease.pool}) is not an IPv4 address and a prefix length from 0 to 32`);
    }
  }
  const mode = `image ${image.name} has readiness "${image.readiness}"`;
  if (image.readiness === 'phone-home') {
    if ((deps.config.http?.publicUrl ?? '') === '') throw permanent(`${of}: ${mode}, but http.publicUrl is empty: its guest has no URL to phone home to; set http.publicUrl`);
    if (deps.readySignals === undefined) throw permanent(`${of}: ${mode}, but this provider has no store for phone-home tokens (the worker's Redis)`);
  }
  if (image.readiness !== 'tcp' || !spec.waitForAddress) return;
  if (lease === undefined) {
    throw permanent(`${of}: ${mode}, which connects to the VM's address, but its network has no address pool (proxmox.networks), so the address is not known before boot; use a pooled bridge and VLAN or another image`);
  }
  if (isSimulatorUrl(deps.config.proxmox.url) && !isLoopbackIpv4(lease.address)) {
    throw permanent(`${of}: ${mode}, but proxmox.url is the simulator and ${lease.address} (pool ${lease.pool}) is not in 127.0.0.0/8: against the simulator a readiness probe connects only on this machine; give the pool loopback addresses`);
  }
}
