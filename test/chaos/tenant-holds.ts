// The chaos run's tenant holds (SPEC 34): every create takes a hold of
// `<name> <uid>` at the door, and the hold goes when that VM is gone. At
// the end (after the drain and the sweep) the holds are exactly the VMs
// of ours (a warm pool's own VMs hold nothing), or a name present with
// that uid, and each tenant's sums are its holds' sizes: no hold leaked
// by a killed job, none given back twice, no VM uncounted.
import { parseMark } from '../../src/provider/mark.js';
import { POOL_MEMBER_PREFIX } from '../../src/pools/types.js';
import type { Desired, SimStateView } from './invariants.js';

const HELD = ['vms', 'cores', 'memoryMiB', 'diskGiB'] as const;

/** Every broken hold invariant, in words: `holds` and `sums` are the tenant-holds and tenant-use hashes as read. */
export function holdViolations(state: SimStateView, holds: Record<string, string>, sums: Record<string, string>, desired: readonly Desired[]): string[] {
  const problems: string[] = [];
  const vmKeys = new Map<string, number>();
  for (const vm of state.vms) {
    const uid = parseMark(vm.config.description)?.uid;
    const name = vm.config.name;
    if (uid === undefined || name === undefined || name.startsWith(POOL_MEMBER_PREFIX)) continue;
    vmKeys.set(`${name} ${uid}`, vm.vmid);
  }
  const present = new Set(desired.filter((d) => d.state === 'present' && d.uid !== undefined).map((d) => `${d.name} ${d.uid ?? ''}`));
  const expected = new Map<string, number>();
  for (const [field, json] of Object.entries(holds)) {
    if (!vmKeys.has(field) && !present.has(field)) problems.push(`hold of ${field} left: no VM of that name and uid, and the name is not present with it`);
    const hold = JSON.parse(json) as Record<string, unknown>;
    for (const quota of HELD) {
      const key = `${String(hold.tenant)} ${quota}`;
      expected.set(key, (expected.get(key) ?? 0) + Number(hold[quota] ?? 0));
    }
  }
  for (const [key, vmid] of vmKeys) if (holds[key] === undefined) problems.push(`VM ${vmid} (${key}) holds no quota`);
  for (const key of new Set([...expected.keys(), ...Object.keys(sums)])) {
    const sum = Number(sums[key] ?? 0);
    const want = expected.get(key) ?? 0;
    if (sum !== want) problems.push(`tenant sum ${key} is ${sum}, its holds add up to ${want}`);
  }
  return problems;
}
