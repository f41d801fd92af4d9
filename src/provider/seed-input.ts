// What a create's seed is built from (SPEC 20, 27, 29): the job's
// user-data, sshKeys and networkConfig, or, with an address lease, the
// static network-config of the lease on net0's MAC (the config write
// keeps the MAC); and for readiness `phone-home` the URL its guest calls,
// with a token drawn for this seed (one a crashed attempt stored only
// expires); for a warm pool's member (SPEC 30) the image's user, whose
// ~/.ssh the vendor-data makes.
import type { ResolvedImage } from '../config/images.js';
import { staticNetworkConfig } from '../nocloud/network-config.js';
import type { SeedInput } from '../nocloud/seed.js';
import type { ProviderDeps } from './deps.js';
import { permanent } from './errors.js';
import type { FoundVm } from './ownership.js';
import { imageUser, isGuestUserName } from '../pools/guest-user.js';
import { issuePhoneHome } from './phone-home.js';
import type { CreateSpec } from './types.js';
import { parseNet0 } from './vm-config.js';

export async function seedInputOf(deps: ProviderDeps, spec: CreateSpec, image: Pick<ResolvedImage, 'name' | 'readiness'>, vm: Pick<FoundVm, 'vmid' | 'config'>): Promise<SeedInput> {
  const networkConfig = spec.address === undefined ? spec.networkConfig : staticNetworkConfig(spec.address, net0Mac(spec, vm));
  const poolUser = spec.poolMember === undefined ? undefined : memberUser(deps, spec, image.name);
  const phoneHomeUrl = image.readiness === 'phone-home' ? await issuePhoneHome(deps, spec) : undefined;
  return {
    name: spec.name,
    ...(spec.userData !== undefined ? { userData: spec.userData } : {}),
    ...(networkConfig !== undefined ? { networkConfig } : {}),
    ...(spec.sshKeys !== undefined ? { sshKeys: spec.sshKeys } : {}),
    installGuestAgent: deps.config.proxmox.installGuestAgent,
    ...(phoneHomeUrl !== undefined ? { phoneHomeUrl } : {}),
    ...(poolUser !== undefined ? { poolUser } : {}),
    joliet: deps.config.proxmox.seedJoliet,
  };
}

/** A pool member's image user (SPEC 30), whose `~/.ssh` its seed makes; an image without a usable one cannot serve a pool. */
export function memberUser(deps: Pick<ProviderDeps, 'config'>, spec: CreateSpec, image: string): string {
  const user = imageUser(deps.config.proxmox.images, image);
  if (user === undefined || !isGuestUserName(user)) {
    const what = user === undefined ? 'names no user' : `has user ${JSON.stringify(user)}, not a login name`;
    throw permanent(`create ${spec.name}: a member of pool ${spec.poolMember ?? ''}, but image ${image} ${what} (proxmox.images[].user), so a claim could not write its keys`);
  }
  return user;
}

function net0Mac(spec: CreateSpec, vm: Pick<FoundVm, 'vmid' | 'config'>): string {
  const net0 = typeof vm.config.net0 === 'string' ? vm.config.net0 : undefined;
  const mac = net0 === undefined ? undefined : parseNet0(net0).mac;
  if (mac === undefined) {
    const lacks = net0 === undefined ? 'no net0' : `no MAC in net0 (${net0})`;
    throw permanent(`create ${spec.name}: VM ${vm.vmid} has ${lacks}, so its leased address ${spec.address?.address ?? ''} cannot be set on it; give the template a network device`);
  }
  return mac;
}
