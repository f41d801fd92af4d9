// Seed ISOs (SPEC 11): `<name>-seed.iso` on each configured node's
// isoStorage. Listing the storages is one content call and one storage
// listing (for the shared flag) per node; the recorded seeds (each create
// records its upload first, seed-records.ts) cost no call once the flags
// are known. A delete is a task, a repeated delete succeeds (F13), and it
// forgets the seed's record.
import { seedFileName } from '../nocloud/seed.js';
import type { OperationContext, SeedIso } from './types.js';
import { beforeWrite, callOpts } from './context.js';
import type { ProviderDeps } from './deps.js';
import { jobSeam } from './job-seam.js';
import { classifyCall } from './errors.js';
import { waitTask } from './tasks.js';

/** The volid a seed uploaded to `storage` gets: `<storage>:iso/<name>-seed.iso`. */
export function seedVolid(storage: string, name: string): string {
  return `${storage}:iso/${seedFileName(name)}`;
}

/** The VM name a seed's volid on `storage` carries; undefined for any other file. */
function seedNameOf(storage: string, volid: string): string | undefined {
  const prefix = `${storage}:iso/`;
  const file = volid.startsWith(prefix) ? volid.slice(prefix.length) : '';
  return /^([a-z0-9-]+)-seed\.iso$/.exec(file)?.[1];
}

export async function listSeeds(deps: ProviderDeps, ctx: OperationContext): Promise<SeedIso[]> {
  const perNode = await Promise.all(
    deps.config.proxmox.nodes.map(async (node): Promise<SeedIso[]> => {
      const [volumes, shared] = await Promise.all([
        jobSeam(deps, ctx).storageContent(node.name, node.isoStorage, 'iso'),
        readShared(deps, ctx, node.name, node.isoStorage),
      ]);
      return volumes.flatMap((v) => {
        const name = seedNameOf(node.isoStorage, v.volid);
        if (!name) return [];
        const seed: SeedIso = { node: node.name, storage: node.isoStorage, volid: v.volid, name };
        if (v.ctime !== undefined) seed.ctime = v.ctime;
        if (shared !== undefined) seed.shared = shared;
        return [seed];
      });
    }),
  );
  return perNode.flat();
}

/**
 * The seeds the records name, on configured nodes' seed storages (a
 * record of a node or storage no longer configured is skipped, as the
 * listing, which covers configured nodes only, would not show its seed
 * either). Its age is the record's: the upload was about to be sent then.
 */
export async function listRecordedSeeds(deps: ProviderDeps, ctx: OperationContext): Promise<SeedIso[]> {
  const records = (await deps.seedRecords?.list()) ?? [];
  // One look per storage and sweep at most, whatever the number of records.
  const flags = new Map<string, Promise<boolean | undefined>>();
  const seeds: SeedIso[] = [];
  for (const record of records) {
    const node = deps.config.proxmox.nodes.find((n) => n.name === record.node && n.isoStorage === record.storage);
    if (!node || seedNameOf(record.storage, record.volid) !== record.name) continue;
    const seed: SeedIso = { node: record.node, storage: record.storage, volid: record.volid, name: record.name };
    const at = Date.parse(record.at);
    if (!Number.isNaN(at)) seed.ctime = Math.floor(at / 1000);
    const key = `${record.node}/${record.storage}`;
    if (!flags.has(key)) flags.set(key, sharedFlag(deps, ctx, record.node, record.storage));
    const shared = await flags.get(key);
    if (shared !== undefined) seed.shared = shared;
    seeds.push(seed);
  }
  return seeds;
}

/** The cached flag; read (and cached) once when this process has none yet. */
async function sharedFlag(deps: ProviderDeps, ctx: OperationContext, node: string, storage: string): Promise<boolean | undefined> {
  return deps.storageShared.get(`${node}/${storage}`) ?? (await readShared(deps, ctx, node, storage));
}

/**
 * Whether the seed storage is shared, from the node's storage listing. The
 * sweep only judges a seed by its node when the answer is "not shared", so
 * a failed listing costs nothing but that judgement: undefined (not cached).
 */
async function readShared(deps: ProviderDeps, ctx: OperationContext, node: string, storage: string): Promise<boolean | undefined> {
  let entries;
  try {
    entries = await deps.api.storages(node, callOpts(ctx));
  } catch (err) {
    if (ctx.signal.aborted) throw classifyCall(err, ctx.signal);
    return undefined;
  }
  const flag = entries.find((s) => s.storage === storage)?.shared;
  if (flag === undefined) return undefined;
  deps.storageShared.set(`${node}/${storage}`, flag !== 0);
  return flag !== 0;
}

export async function deleteSeed(deps: ProviderDeps, seed: SeedIso, ctx: OperationContext): Promise<void> {
  beforeWrite(ctx);
  const upid = await jobSeam(deps, ctx).deleteVolume(seed.node, seed.storage, seed.volid);
  await waitTask(deps, ctx, upid, { what: `delete of ${seed.volid} on ${seed.node}`, budgetSeconds: deps.config.budgets.taskSeconds });
  await deps.seedRecords?.forget(seed.node, seed.volid);
}
