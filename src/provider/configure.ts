// SPEC 13 step 5: the one synchronous config write: cores, memory, the
// agent, the tags (the template's plus ours, and in the several-clusters
// form the cluster's, SPEC 32), the seed on ide2, and net0
// with bridge and VLAN tag when configured, keeping its MAC. A clone
// copies `protection` from its template (SPEC 28, audit 7.1): the write
// deletes it, so no VM of ours is left that its delete cannot remove.
import type { NodeConfig } from '../config/types.js';
import type { VmConfig } from '../proxmox/api.js';
import type { CreateSpec } from './types.js';
import { clusterTag, mergeTags, poolTag } from './tags.js';
import { isProtected, rewriteNet0 } from './vm-config.js';

export function configParams(
  spec: CreateSpec,
  node: NodeConfig,
  current: VmConfig,
  tag: string,
  seedVolid: string,
  cluster?: string,
): Record<string, string | number> {
  // A pool's member also carries the pool tag (SPEC 30), which its claim removes.
  const ours = spec.poolMember === undefined ? mergeTags(current.tags, tag) : mergeTags(mergeTags(current.tags, tag), poolTag(tag));
  const params: Record<string, string | number> = {
    cores: spec.cores,
    memory: spec.memoryMiB,
    agent: '1',
    tags: cluster === undefined ? ours : mergeTags(ours, clusterTag(tag, cluster)),
    ide2: `${seedVolid},media=cdrom`,
  };
  // `delete` rather than `protection=0`: the config ends as if never protected, and nothing more is sent for a template without it.
  if (isProtected(current)) params.delete = 'protection';
  const bridge = spec.bridge ?? node.bridge;
  const vlanTag = spec.vlanTag ?? node.vlanTag;
  if (current.net0 !== undefined && (bridge !== undefined || vlanTag !== undefined)) {
    params.net0 = rewriteNet0(current.net0, { ...(bridge !== undefined ? { bridge } : {}), ...(vlanTag !== undefined ? { vlanTag } : {}) });
  }
  return params;
}
