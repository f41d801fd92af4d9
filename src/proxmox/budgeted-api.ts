// The request budget as a decorator of the seam (SPEC 26): every Proxmox
// call waits for its slot in the budget shared by all worker processes,
// goes to the API it wraps, and hands the slot back with its answer. The
// wait honours the call's signal. Given a function, the budget is the one
// of the address the call goes to (SPEC 28): a call for a node with its
// own proxmox.nodes[i].apiUrl enters that node's pveproxy, so it is paced
// there, apart from the calls entering proxmox.url's.
import type { ProxmoxApi } from './api.js';
import { decorateApi } from './decorate.js';
import type { RequestBudget } from './request-budget.js';

/** The budget of the address a call for `node` goes to (undefined: a call with no node and no `via`). */
export type BudgetOf = (node: string | undefined) => RequestBudget;

export function budgetApi(api: ProxmoxApi, budget: RequestBudget | BudgetOf): ProxmoxApi {
  const budgetOf: BudgetOf = typeof budget === 'function' ? budget : () => budget;
  return decorateApi(api, async ({ name, ids, opts }, run) => {
    // A call with no node of its own goes where `via` says (node-routed-api.ts).
    const finish = await budgetOf(ids.node ?? opts?.via).take(name, opts?.signal);
    try {
      return await run(opts);
    } finally {
      finish();
    }
  });
}
