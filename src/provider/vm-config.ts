// Reading and rewriting the parts of a qemu config the provider acts on:
// net0 (F19, decisions on the VLAN), disks and the boot order (F19, F20),
// Proxmox cloud-init drives, the protection flag (SPEC 28).
import { hasTag } from './tags.js';

const DISK_KEY = /^(ide|sata|scsi|virtio)\d+$/;
const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i;

export interface Net0 {
  /** `model=MAC` first, then the options, in their order. */
  parts: [string, string][];
  mac?: string;
}

export function parseNet0(net0: string): Net0 {
  const parts = net0
    .split(',')
    .filter((p) => p !== '')
    .map((p): [string, string] => {
      const eq = p.indexOf('=');
      return eq < 0 ? [p, ''] : [p.slice(0, eq), p.slice(eq + 1)];
    });
  const macPart = parts.find(([k, v]) => k === 'macaddr' || MAC.test(v));
  return macPart ? { parts, mac: macPart[1] } : { parts };
}

/** net0 with bridge and VLAN tag set, every other option (the MAC first of all) kept. */
export function rewriteNet0(net0: string, change: { bridge?: string; vlanTag?: number }): string {
  const { parts } = parseNet0(net0);
  const set = (key: string, value: string): void => {
    const at = parts.findIndex(([k]) => k === key);
    if (at >= 0) parts[at] = [key, value];
    else parts.push([key, value]);
  };
  if (change.bridge !== undefined) set('bridge', change.bridge);
  if (change.vlanTag !== undefined) set('tag', String(change.vlanTag));
  return parts.map(([k, v]) => (v === '' ? k : `${k}=${v}`)).join(',');
}

type Config = Record<string, string | number | undefined>;

/** Perl truth of `protection`, as check_protection reads it (SPEC 28, audit 7.1). */
export function isProtected(config: Config): boolean {
  const value = config.protection;
  return value !== undefined && value !== 0 && value !== '0' && value !== '';
}

/**
 * Protected by someone, not by the clone (SPEC 28): the create's config
 * write adds our tag and deletes the flag a clone copies from its template,
 * in one request. A VM of ours without the tag never had that write (a
 * create stopped after its clone), so its flag is the template's.
 */
export function protectedBySomeone(config: Config, tag: string): boolean {
  return isProtected(config) && hasTag(typeof config.tags === 'string' ? config.tags : undefined, tag);
}

function diskKeys(config: Config): string[] {
  return Object.keys(config).filter((k) => DISK_KEY.test(k));
}

/** A Proxmox cloud-init drive in any slot (`...:vm-9000-cloudinit,media=cdrom`, F19). */
export function cloudInitDrive(config: Config): string | undefined {
  return diskKeys(config).find((k) => /(^|[:/])(vm|base)-\d+-cloudinit\b/.test(String(config[k])));
}

function isCdrom(value: string): boolean {
  return /(^|,)media=cdrom(,|$)/.test(value) || /^(none|cdrom)(,|$)/.test(value);
}

/** Boot order of `boot: order=scsi0;ide2;net0` (the legacy `boot: cdn` form is not used by 9.x templates). */
function bootOrder(config: Config): string[] {
  const boot = String(config.boot ?? '');
  const m = /(?:^|,)order=([^,]*)/.exec(boot);
  return m?.[1] ? m[1].split(';').filter((d) => d !== '') : [];
}

/** The first disk in the boot order that is not ide2 (F19); without an order, the first disk that is not a cdrom. */
export function bootDisk(config: Config): string | undefined {
  const isDisk = (k: string): boolean =>
    DISK_KEY.test(k) && k !== 'ide2' && config[k] !== undefined && !isCdrom(String(config[k]));
  const ordered = bootOrder(config).find(isDisk);
  return ordered ?? diskKeys(config).sort().find(isDisk);
}

const UNIT: Record<string, number> = { K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 };

/** Bytes of a disk's `size=` option (`3G`, `512M`), undefined when absent. */
export function diskSizeBytes(value: string | number | undefined): number | undefined {
  const m = /(?:^|,)size=(\d+(?:\.\d+)?)([KMGT]?)(?:,|$)/.exec(String(value ?? ''));
  if (!m?.[1]) return undefined;
  return Number(m[1]) * (m[2] ? (UNIT[m[2]] ?? 1) : 1);
}

export const GIB = 2 ** 30;

const VOLUME_KEY = /^(ide|sata|scsi|virtio|efidisk|tpmstate)\d+$/;

/**
 * The storages a config's volumes live on, cdroms included but not `none`
 * or `cdrom`: what Proxmox requires to be shared before it clones a VM to
 * another node (Qemu.pm check_storage_access_clone, SPEC 23).
 */
export function volumeStorages(config: Config): string[] {
  const storages = new Set<string>();
  for (const [key, value] of Object.entries(config)) {
    if (!VOLUME_KEY.test(key) || value === undefined) continue;
    const file = String(value).split(',')[0] ?? '';
    const colon = file.indexOf(':');
    if (colon > 0) storages.add(file.slice(0, colon));
  }
  return [...storages];
}
