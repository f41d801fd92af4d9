// The `network-list` format of proxmox.networks (SPEC 29).
import type { Format } from 'convict';

function parseJsonIfString(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

export const NETWORK_LIST_FORMAT: Format = {
  name: 'network-list',
  coerce: parseJsonIfString,
  validate(value: unknown) {
    if (!Array.isArray(value)) throw new Error('must be a JSON list of {name, bridge, vlanTag?, cidr, gateway?, dns?, first?, last?, exclude?, reuseCooldownSeconds?}');
  },
};
