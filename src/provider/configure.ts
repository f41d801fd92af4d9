// SPEC 13 step 5: the one synchronous config write: cores, memory, the
// agent, the tags (the template's plus ours), the seed on ide2, and net0
// with bridge and VLAN tag when configured, keeping its MAC.
import type { NodeConfig } from '../config/types.js';
import type { VmConfig } from '../proxmox/api.js';
import type { CreateSpec } from './types.js';
import { mergeTags } from './tags.js';
import { rewriteNet0 } from './vm-config.js';

export function configParams(
  spec: CreateSpec,
  node: NodeConfig,
  current: VmConfig,
  tag: string,
  seedVolid: string,
): Record<string, string | number> {
  const params: Record<string, string | number> = {
    cores: spec.cores,
    memory: spec.memoryMiB,
    agent: '1',
    tags: mergeTags(current.tags, tag),
    ide2: `${seedVolid},media=cdrom`,
  };
  const bridge = spec.bridge ?? node.bridge;
  const vlanTag = spec.vlanTag ?? node.vlanTag;
  if (current.net0 !== undefined && (bridge !== undefined || vlanTag !== undefined)) {
    params.net0 = rewriteNet0(current.net0, { ...(bridge !== undefined ? { bridge } : {}), ...(vlanTag !== undefined ? { vlanTag } : {}) });
  }
  return params;
}
