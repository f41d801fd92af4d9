// The official Proxmox VE API schema (vendor/pve-api/apidata.json) as the
// tests read it: every path's node by its path template, each method's
// info typed as far as the reading test needs.
import { readFileSync } from 'node:fs';

export interface SchemaNode<M> {
  path: string;
  info?: Record<string, M>;
  children?: SchemaNode<M>[];
}

/** Every node of the schema's tree by its path (`/nodes/{node}/qemu`), read once per call. */
export function schemaByPath<M>(): Map<string, SchemaNode<M>> {
  const byPath = new Map<string, SchemaNode<M>>();
  const walk = (nodes: SchemaNode<M>[]): void => {
    for (const node of nodes) {
      byPath.set(node.path, node);
      if (node.children) walk(node.children);
    }
  };
  walk(JSON.parse(readFileSync(new URL('../../vendor/pve-api/apidata.json', import.meta.url), 'utf8')) as SchemaNode<M>[]);
  return byPath;
}
