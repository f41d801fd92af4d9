// MAC addresses with Proxmox's prefix BC:24:11 (a clone gets a new one, as
// the captures show: the template's MAC differs from its clone's).
import { randomBytes } from 'node:crypto';

export function randomMac(): string {
  const tail = [...randomBytes(3)].map((b) => b.toString(16).toUpperCase().padStart(2, '0'));
  return ['BC', '24', '11', ...tail].join(':');
}
