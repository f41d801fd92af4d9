// Drive strings of a qemu config (`local-lvm:vm-100-disk-1,size=3G`) and
// sizes as Proxmox writes them (PVE::JSONSchema format_size/parse_size).

export const DRIVE_KEY = /^(ide|sata|scsi|virtio)\d+$|^(efidisk0|tpmstate0)$/;

const UNITS: Record<string, number> = { K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

export function parseSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([KMGT]?)$/.exec(text);
  if (match === null) return Number.NaN;
  return Math.round(Number(match[1]) * (UNITS[match[2] as string] ?? 1));
}

export function formatSize(bytes: number): string {
  const kb = Math.floor(bytes / 1024);
  if (kb * 1024 !== bytes) return String(bytes);
  const mb = Math.floor(kb / 1024);
  if (mb * 1024 !== kb) return `${kb}K`;
  const gb = Math.floor(mb / 1024);
  if (gb * 1024 !== mb) return `${mb}M`;
  const tb = Math.floor(gb / 1024);
  if (tb * 1024 !== gb) return `${gb}G`;
  return `${tb}T`;
}

export interface Drive {
  /** `local-lvm:vm-100-disk-1`, `none`, `cdrom` */
  file: string;
  options: [string, string][];
}

export function parseDrive(text: string): Drive {
  const [file = '', ...rest] = text.split(',');
  const options = rest.map((part): [string, string] => {
    const eq = part.indexOf('=');
    return eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)];
  });
  return { file: file.startsWith('file=') ? file.slice(5) : file, options };
}

export function printDrive(drive: Drive): string {
  return [drive.file, ...drive.options.map(([k, v]) => `${k}=${v}`)].join(',');
}

export function driveOption(drive: Drive, key: string): string | undefined {
  return drive.options.find(([k]) => k === key)?.[1];
}

export function setDriveOption(drive: Drive, key: string, value: string): Drive {
  const options = drive.options.filter(([k]) => k !== key);
  return { file: drive.file, options: [...options, [key, value]] };
}

/** The storage of a volume id (`local-lvm:vm-100-disk-1` is on `local-lvm`), undefined for `none` or `cdrom`. */
export function storageOf(volid: string): string | undefined {
  const colon = volid.indexOf(':');
  return colon > 0 ? volid.slice(0, colon) : undefined;
}

export function isCdrom(drive: Drive): boolean {
  return driveOption(drive, 'media') === 'cdrom';
}

/** Bytes of the drive from its `size=` option, 0 when absent. */
export function driveBytes(drive: Drive): number {
  const size = driveOption(drive, 'size');
  return size === undefined ? 0 : parseSize(size);
}
