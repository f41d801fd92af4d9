// Two Proxmox clusters (SPEC 32) for the face's tests: `east` of the
// single-cluster keys (nodes pve1 and pve2, the implicit image), `west`
// with nodes of its own (a pve1 too, and pve3) and the image `ubuntu`; and
// the health results a worker would store for them.
import type { NodeHealth } from '../../src/provider/types.js';

export const TWO_CLUSTERS_ENV: Record<string, string> = {
  PROXMOX_CLUSTERS: JSON.stringify([
    { name: 'east', url: 'https://east.example:8006' },
    {
      name: 'west',
      url: 'https://west.example:8006',
      nodes: [
        { name: 'pve1', template: 9001, isoStorage: 'proxy-seeds' },
        { name: 'pve3', template: 9003, isoStorage: 'proxy-seeds' },
      ],
      images: [{ name: 'ubuntu', templates: { pve1: 9101, pve3: 9103 } }],
    },
  ]),
};

const unreachable = (host: string): NodeHealth['reasons'] => [{ reason: 'Unreachable', detail: `connect ECONNREFUSED ${host}:8006` }];

/** east up (pve1 fit, 3000 MiB free; pve2 offline), west away (no node answered). */
export const EAST_UP_WEST_AWAY: NodeHealth[] = [
  { node: 'pve1', cluster: 'east', ok: true, reasons: [], freeMemoryMiB: 3000 },
  { node: 'pve2', cluster: 'east', ok: false, reasons: [{ reason: 'NodeOffline', detail: 'status offline' }], freeMemoryMiB: 500 },
  { node: 'pve1', cluster: 'west', ok: false, reasons: unreachable('10.2.0.1') },
  { node: 'pve3', cluster: 'west', ok: false, reasons: unreachable('10.2.0.3') },
];

/** Neither cluster answered. */
export const BOTH_AWAY: NodeHealth[] = [
  { node: 'pve1', cluster: 'east', ok: false, reasons: unreachable('10.1.0.1') },
  { node: 'pve2', cluster: 'east', ok: false, reasons: unreachable('10.1.0.2') },
  { node: 'pve1', cluster: 'west', ok: false, reasons: unreachable('10.2.0.1') },
  { node: 'pve3', cluster: 'west', ok: false, reasons: unreachable('10.2.0.3') },
];
