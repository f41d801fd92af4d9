// What the simulated guest takes from its NoCloud seed at boot (SPEC 29),
// as cloud-init's NoCloud datasource does: a CD-ROM labelled `cidata`
// (or `CIDATA`) holding meta-data and user-data (both required, else the
// seed is not used at all), network-config and vendor-data when present.
import { DRIVE_KEY, isCdrom, parseDrive, storageOf } from '../disks.js';
import { IsoReadError, readIso } from '../iso-reader/index.js';
import { net0Mac } from '../mac.js';
import type { SimState, SimVm } from '../state.js';
import { phoneHomeRequest } from './cloud-config.js';
import { staticAddressOf } from './network-config.js';
import type { GuestSeed, StaticAddress } from './types.js';
import { isMap, parseCloudYaml } from './yaml.js';

/** What the guest's NIC is called inside (Debian on virtio-net in a q35 machine, slot 18). */
export const GUEST_NIC = 'ens18';

function text(files: Map<string, Buffer>, name: string): string | undefined {
  return files.get(name)?.toString('utf8');
}

function metaDataOf(raw: string, problems: string[]): { instanceId?: string; hostname?: string } | undefined {
  const parsed = parseCloudYaml(raw);
  if ('problem' in parsed || !isMap(parsed.value)) {
    problems.push(`meta-data: not a YAML map${'problem' in parsed ? ` (${parsed.problem})` : ''}; cloud-init does not take the seed`);
    return undefined;
  }
  const { 'instance-id': id, 'local-hostname': host } = parsed.value;
  const instanceId = typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
  return { ...(instanceId !== undefined && { instanceId }), ...(typeof host === 'string' && { hostname: host }) };
}

function networkOf(raw: string | undefined, mac: string, problems: string[]): StaticAddress | undefined {
  if (raw === undefined) return undefined;
  const parsed = parseCloudYaml(raw);
  if ('problem' in parsed) {
    problems.push(`network-config: not YAML (${parsed.problem}); the guest falls back to DHCP`);
    return undefined;
  }
  return staticAddressOf(parsed.value, mac, GUEST_NIC);
}

/** The seed's files as the guest reads them, given net0's MAC. */
export function seedFromFiles(volid: string, files: Map<string, Buffer>, mac: string): GuestSeed {
  const problems: string[] = [];
  const meta = text(files, 'meta-data');
  const user = text(files, 'user-data');
  if (meta === undefined || user === undefined) return { volid, problems: ['the seed lacks meta-data or user-data; cloud-init does not take it'] };
  const identity = metaDataOf(meta, problems);
  if (identity === undefined) return { volid, problems };
  const staticAddress = networkOf(text(files, 'network-config'), mac, problems);
  const phoneHome = phoneHomeRequest(user, text(files, 'vendor-data'), problems);
  return { volid, ...identity, ...(staticAddress && { staticAddress }), ...(phoneHome && { phoneHome }), problems };
}

/** Every CD-ROM volume of the config, in key order. */
function cdromVolumes(vm: SimVm): string[] {
  return Object.keys(vm.config)
    .filter((key) => DRIVE_KEY.test(key))
    .sort()
    .map((key) => parseDrive(String(vm.config[key])))
    .filter((drive) => isCdrom(drive) && storageOf(drive.file) !== undefined)
    .map((drive) => drive.file);
}

/** What the guest reads at boot from the first CD-ROM labelled cidata; `problems` says why a seed was passed over. */
export function readGuestSeed(state: SimState, vm: SimVm): GuestSeed {
  const problems: string[] = [];
  for (const volid of cdromVolumes(vm)) {
    const volume = state.nodes.get(vm.node)?.storages.get(storageOf(volid) ?? '')?.volumes.get(volid);
    if (volume === undefined) {
      problems.push(`${volid}: no such volume`);
      continue;
    }
    if (volume.bytes === undefined) {
      problems.push(`${volid}: its bytes were not kept (over the simulator's bound), so the guest boots without it`);
      continue;
    }
    try {
      const { volumeId, files } = readIso(volume.bytes);
      if (volumeId === 'cidata' || volumeId === 'CIDATA') return seedFromFiles(volid, files, net0Mac(vm.config));
      problems.push(`${volid}: volume id "${volumeId}" is not cidata`);
    } catch (err) {
      if (!(err instanceof IsoReadError)) throw err;
      problems.push(`${volid}: ${err.message}`);
    }
  }
  return { problems: problems.length > 0 ? problems : ['no CD-ROM holds a seed'] };
}
