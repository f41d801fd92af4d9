// Seed ISOs (SPEC 11): `<name>-seed.iso` on each configured node's
// isoStorage. Listing is one content call per node; a delete is a task
// and a repeated delete succeeds (F13).
import { seedFileName } from '../nocloud/seed.js';
import type { OperationContext, SeedIso } from './types.js';
import { beforeWrite, callOpts, type ProviderDeps } from './deps.js';
import { classifyCall } from './errors.js';
import { waitTask } from './tasks.js';


/** The volid a seed uploaded to `storage` gets: `<storage>:iso/<name>-seed.iso`. */
export function seedVolid(storage: string, name: string): string {
  return `${storage}:iso/${seedFileName(name)}`;
}

export async function listSeeds(deps: ProviderDeps, ctx: OperationContext): Promise<SeedIso[]> {
  const perNode = await Promise.all(
    deps.config.proxmox.nodes.map(async (node): Promise<SeedIso[]> => {
      let volumes;
      try {
        volumes = await deps.api.storageContent(node.name, node.isoStorage, 'iso', callOpts(ctx));
      } catch (err) {
        throw classifyCall(err, ctx.signal);
      }
      const prefix = `${node.isoStorage}:iso/`;
      return volumes.flatMap((v) => {
        const file = v.volid.startsWith(prefix) ? v.volid.slice(prefix.length) : '';
        const m = /^([a-z0-9-]+)-seed\.iso$/.exec(file);
        if (!m?.[1]) return [];
        return [{ node: node.name, storage: node.isoStorage, volid: v.volid, name: m[1], ...(v.ctime !== undefined ? { ctime: v.ctime } : {}) }];
      });
    }),
  );
  return perNode.flat();
}

export async function deleteSeed(deps: ProviderDeps, seed: SeedIso, ctx: OperationContext): Promise<void> {
  beforeWrite(ctx);
  let upid;
  try {
    upid = await deps.api.deleteVolume(seed.node, seed.storage, seed.volid, callOpts(ctx));
  } catch (err) {
    throw classifyCall(err, ctx.signal);
  }
  await waitTask(deps, ctx, upid, { what: `delete of ${seed.volid} on ${seed.node}`, budgetSeconds: deps.config.budgets.taskSeconds });
}
