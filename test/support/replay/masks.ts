// What a replay's comparison does not hold equal (SPEC 33; docs/decisions.md
// "A replay's comparison"): ids, times and addresses. A string has them
// masked before it is compared; a value under a volatile key is compared
// by type only.

/** Keys whose values are times, pids, uptimes, sizes or usage counters: the type must match, the value need not. */
export const VOLATILE_KEYS = new Set([
  'pid', 'pstart', 'starttime', 'endtime', 'uptime', 'ctime', 'time', 'mtime',
  'cpu', 'cpus', 'mem', 'freemem', 'maxmem', 'memhost', 'disk', 'maxdisk', 'diskread', 'diskwrite', 'netin', 'netout',
  'total', 'used', 'avail', 'available', 'used_fraction', 'free', 'size', 'shared_mem',
  'loadavg', 'wait', 'idle', 'mhz', 'balloon', 'pressurecpusome', 'pressureiosome', 'pressureiofull', 'pressurememorysome', 'pressurememoryfull',
  'digest', 'vmgenid', 'smbios1', 'repoid', 'kversion', 'tx-bytes', 'rx-bytes', 'tx-packets', 'rx-packets', 'tx-errs', 'rx-errs', 'tx-dropped', 'rx-dropped',
]);

const MASKS: [RegExp, string][] = [
  // A UPID's pid, times and id (a VMID, a storage): its node, task type and user say what ran where, and must agree.
  [/(UPID:[^:\s"]+:)[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:([^:\s"]*):[^:\s"]*:/gi, '$1<pid>:<pstart>:<start>:$2:<id>:'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  // A certificate's SHA-256 fingerprint (a node's ssl_fingerprint), before a MAC would take its first six bytes.
  [/\b(?:[0-9a-f]{2}:){31}[0-9a-f]{2}\b/gi, '<fingerprint>'],
  [/\b(?:[0-9a-f]{2}:){5}[0-9a-f]{2}\b/gi, '<mac>'],
  [/\b\d{1,3}(?:\.\d{1,3}){3}\b/g, '<ip>'],
  // An IPv6 address: hex groups with `::`, or eight groups.
  [/(?<![\w:])(?:[0-9a-f]{1,4}:){1,7}(?::|(?::[0-9a-f]{1,4}){1,7}|[0-9a-f]{1,4})(?![\w:])/gi, '<ip6>'],
  [/\b[0-9a-f]{32,}\b/gi, '<hex>'],
  // Epoch seconds or ms inside a text (`ctime=1790145676`).
  [/\b1\d{9}(?:\d{3})?\b/g, '<time>'],
];

/** The string with its ids, times and addresses replaced by placeholders. */
export function masked(text: string): string {
  let out = text;
  for (const [pattern, placeholder] of MASKS) out = out.replace(pattern, placeholder);
  return out;
}

/** The fields an entry of a list is matched on, in this order, when the list's entries have one. */
export const ENTRY_IDS = ['id', 'vmid', 'storage', 'iface', 'volid', 'upid', 'node'] as const;

export const UPID = /^UPID:[^:]+:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:[^:]*:[^:]*:[^:]*:$/i;
