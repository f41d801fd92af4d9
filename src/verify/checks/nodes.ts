// verify's nodes group (SPEC 33): every configured node online in `GET /nodes`.
import { errorText, fail, ok, type VerifyContext } from '../context.js';
import type { CheckResult } from '../types.js';

const GROUP = 'nodes';

export async function checkNodes(ctx: VerifyContext): Promise<CheckResult[]> {
  let listed;
  try {
    listed = await ctx.api.nodes();
  } catch (err) {
    return [fail(GROUP, 'GET /nodes', errorText(err), 'check that the API answers GET /nodes (see the api checks above)')];
  }
  ctx.inventory.nodes = listed.map((n) => ({ node: n.node, status: n.status }));
  return ctx.config.proxmox.nodes.map(({ name }, i) => {
    const entry = listed.find((n) => n.node === name);
    if (entry === undefined) return fail(GROUP, `node ${name} online`, `no node ${name} in the cluster (it has ${listed.map((n) => n.node).join(', ')})`, `fix proxmox.nodes[${i}].name: the node's name as pvecm nodes shows it`);
    if (entry.status !== 'online') return fail(GROUP, `node ${name} online`, `node ${name} is ${entry.status}`, `start node ${name} or bring it back into the cluster (pvecm status), or remove it from proxmox.nodes`);
    return ok(GROUP, `node ${name} online`, 'online');
  });
}
