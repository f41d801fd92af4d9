// verify's privileges group (SPEC 33): each (path, privilege) the
// privilege list expands to for this config, read with
// `GET /access/permissions?path=` (a privilege is held when its key is
// there; the value is only its propagate flag).
import type { Permissions, VmConfig } from '../../proxmox/api.js';
import { parseNet0, volumeStorages } from '../../provider/vm-config.js';
import { errorText, fail, ok, type VerifyContext } from '../context.js';
import { expandPrivileges, type PrivilegeNeed, type TemplateFacts } from '../privileges.js';
import type { CheckResult } from '../types.js';

const GROUP = 'privileges';

/** The storages of a config's disks (its cdroms left out: a clone allocates only disks). */
export function diskStorages(config: VmConfig): string[] {
  return volumeStorages(Object.fromEntries(Object.entries(config).filter(([, value]) => !/(^|,)media=cdrom(,|$)/.test(String(value)))));
}

/** What the privilege list needs to know of a template: net0's bridge and tag, its disks' storages. */
export function factsOf(node: string, vmid: number, config: VmConfig): TemplateFacts {
  const parts = new Map(config.net0 === undefined ? [] : parseNet0(config.net0).parts);
  const tag = parts.get('tag');
  return { node, vmid, ...(parts.get('bridge') ? { bridge: parts.get('bridge') } : {}), ...(tag ? { tag: Number(tag) } : {}), storages: diskStorages(config) };
}

function fixFor(ctx: VerifyContext, need: PrivilegeNeed): string {
  return `pveum aclmod ${need.grantPath} -token '${ctx.tokenId}' -role ${need.role} (README, "On your own cluster"), or add ${need.privilege} to the role the token has on ${need.grantPath}`;
}

export async function checkPrivileges(ctx: VerifyContext): Promise<CheckResult[]> {
  const facts = (await ctx.templates()).flatMap((t) => (t.config === undefined ? [] : [factsOf(t.node, t.vmid, t.config)]));
  const needs = expandPrivileges(ctx.config, facts);
  const paths = [...new Set(needs.map((n) => n.path))];
  const answers = new Map(
    await Promise.all(
      paths.map(async (path): Promise<[string, Permissions | Error]> => {
        try {
          return [path, await ctx.api.permissions(path)];
        } catch (err) {
          return [path, err instanceof Error ? err : new Error(String(err))];
        }
      }),
    ),
  );
  return needs.map((need) => {
    const name = `${need.privilege} on ${need.path}`;
    const answer = answers.get(need.path);
    if (answer instanceof Error) return fail(GROUP, name, `GET /access/permissions?path=${need.path} failed: ${errorText(answer)}`, `check that the token ${ctx.tokenId} may read its own permissions`);
    if (answer?.[need.path]?.[need.privilege] !== undefined) return ok(GROUP, name, `held (${need.why})`);
    return fail(GROUP, name, `not held: needed to ${need.why} (${need.feature})`, fixFor(ctx, need));
  });
}
