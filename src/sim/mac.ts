// MAC addresses with Proxmox's prefix BC:24:11 (a clone gets a new one, as
// the captures show: the template's MAC differs from its clone's).
import { randomBytes } from 'node:crypto';

export function randomMac(): string {
  const tail = [...randomBytes(3)].map((b) => b.toString(16).toUpperCase().padStart(2, '0'));
  return ['BC', '24', '11', ...tail].join(':');
}

/** The MAC of the VM's net0 (`virtio=BC:24:11:..,bridge=vmbr0`), lower case, as the guest sees it; a made-up one without net0. */
export function net0Mac(config: Record<string, string | number>): string {
  const mac = /([0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5})/.exec(String(config.net0 ?? ''))?.[1];
  return (mac ?? 'bc:24:11:00:00:01').toLowerCase();
}
