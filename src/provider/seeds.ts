// Seed ISOs (SPEC 11): `<name>-seed.iso` on each configured node's
// isoStorage. Listing is one content call and one storage listing (for
// the shared flag) per node; a delete is a task and a repeated delete
// succeeds (F13).
import { seedFileName } from '../nocloud/seed.js';
import type { OperationContext, SeedIso } from './types.js';
import { beforeWrite, callOpts } from './context.js';
import type { ProviderDeps } from './deps.js';
import { call } from './call.js';
import { classifyCall } from './errors.js';
import { waitTask } from './tasks.js';

/** The volid a seed uploaded to `storage` gets: `<storage>:iso/<name>-seed.iso`. */
export function seedVolid(storage: string, name: string): string {
  return `${storage}:iso/${seedFileName(name)}`;
}

export async function listSeeds(deps: ProviderDeps, ctx: OperationContext): Promise<SeedIso[]> {
  const perNode = await Promise.all(
    deps.config.proxmox.nodes.map(async (node): Promise<SeedIso[]> => {
      const [volumes, shared] = await Promise.all([
        call(ctx, () => deps.api.storageContent(node.name, node.isoStorage, 'iso', callOpts(ctx))),
        isShared(deps, ctx, node.name, node.isoStorage),
      ]);
      const prefix = `${node.isoStorage}:iso/`;
      return volumes.flatMap((v) => {
        const file = v.volid.startsWith(prefix) ? v.volid.slice(prefix.length) : '';
        const m = /^([a-z0-9-]+)-seed\.iso$/.exec(file);
        if (!m?.[1]) return [];
        const seed: SeedIso = { node: node.name, storage: node.isoStorage, volid: v.volid, name: m[1] };
        if (v.ctime !== undefined) seed.ctime = v.ctime;
        if (shared !== undefined) seed.shared = shared;
        return [seed];
      });
    }),
  );
  return perNode.flat();
}

/**
 * Whether the seed storage is shared, from the node's storage listing. The
 * sweep only judges a seed by its node when the answer is "not shared", so
 * a failed listing costs nothing but that judgement: undefined.
 */
async function isShared(deps: ProviderDeps, ctx: OperationContext, node: string, storage: string): Promise<boolean | undefined> {
  let entries;
  try {
    entries = await deps.api.storages(node, callOpts(ctx));
  } catch (err) {
    if (ctx.signal.aborted) throw classifyCall(err, ctx.signal);
    return undefined;
  }
  const shared = entries.find((s) => s.storage === storage)?.shared;
  return shared === undefined ? undefined : shared !== 0;
}

export async function deleteSeed(deps: ProviderDeps, seed: SeedIso, ctx: OperationContext): Promise<void> {
  beforeWrite(ctx);
  const upid = await call(ctx, () => deps.api.deleteVolume(seed.node, seed.storage, seed.volid, callOpts(ctx)));
  await waitTask(deps, ctx, upid, { what: `delete of ${seed.volid} on ${seed.node}`, budgetSeconds: deps.config.budgets.taskSeconds });
}
