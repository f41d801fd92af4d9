// Which config keys Proxmox holds in `pending` when written to a running
// VM, until its next start (qemu-server vmconfig_hotplug_pending), for the
// keys the client writes. `cores` and `sockets` are never hotplugged (only
// `vcpus` is, with the `cpu` feature); `memory` is with the `memory`
// feature, which needs NUMA. The rest of what the client writes (tags,
// description, ide2, net0, agent) is taken at once here; see README.md.
type Config = Readonly<Record<string, string | number | undefined>>;

/** `hotplug` as parse_hotplug_features reads it: absent or `1` is the default `network,disk,usb`, `0` none. */
export function hotplugFeatures(config: Config): Set<string> {
  const raw = config.hotplug === undefined ? '1' : String(config.hotplug);
  if (raw === '0') return new Set();
  const features = raw === '1' ? 'network,disk,usb' : raw;
  return new Set(features.split(/[,;\s]+/).filter((f) => f !== ''));
}

/** True when a write of `key` to a running VM with this config waits for the next start. */
export function heldUntilStart(key: string, config: Config): boolean {
  if (key === 'cores' || key === 'sockets') return true;
  if (key === 'memory') return !(hotplugFeatures(config).has('memory') && Number(config.numa ?? 0) === 1);
  return false;
}

/** Memory.pm's $STATICMEM: a VM that hotplugs memory runs with at least this much (MiB). */
export const STATIC_MEMORY_MIB = 1024;

/**
 * What qemu_memory_hotplug dies with for `memory` written to a running VM
 * that hotplugs it, else undefined. vmconfig_hotplug_pending answers it
 * as `hotplug problem - <text>` for the key (a 400 after the write) and
 * leaves the value pending, so the next start would take it.
 */
export function hotplugRefusal(key: string, value: string | number, config: Config): string | undefined {
  if (key !== 'memory' || heldUntilStart(key, config)) return undefined;
  return Number(value) < STATIC_MEMORY_MIB ? `hotplug problem - memory can't be lower than ${STATIC_MEMORY_MIB} MB` : undefined;
}
