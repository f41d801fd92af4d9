// Every template of every image on every node (SPEC 27), each read once
// for the groups that need it (privileges, storages, networks,
// templates); the inventory keeps each config read.
import { imagesOf } from '../config/images.js';
import { sourceOf } from '../config/template-source.js';
import type { Config } from '../config/types.js';
import type { ProxmoxApi } from '../proxmox/api.js';
import type { TemplateEntry } from './context.js';
import type { HostInventory } from './types.js';

/** The templates the config names, each (node, vmid) once, with the first key naming it. */
export function configuredTemplates(config: Config): Omit<TemplateEntry, 'config' | 'error'>[] {
  const seen = new Map<string, Omit<TemplateEntry, 'config' | 'error'>>();
  for (const image of imagesOf(config.proxmox)) {
    for (const entry of image.templates) {
      const source = sourceOf(entry);
      const id = `${source.node}/${source.vmid}`;
      if (!seen.has(id)) seen.set(id, { node: source.node, vmid: source.vmid, key: entry.key });
    }
  }
  return [...seen.values()];
}

/** A loader that reads them all at its first call, one node's in parallel with another's, in a stable order. */
export function templateLoader(config: Config, api: ProxmoxApi, inventory: HostInventory): () => Promise<TemplateEntry[]> {
  let loaded: Promise<TemplateEntry[]> | undefined;
  return () =>
    (loaded ??= Promise.all(
      configuredTemplates(config).map(async (t): Promise<TemplateEntry> => {
        try {
          return { ...t, config: await api.getConfig(t.node, t.vmid) };
        } catch (error) {
          return { ...t, error };
        }
      }),
    ).then((entries) => {
      for (const e of entries) if (e.config !== undefined) inventory.templates.push({ node: e.node, vmid: e.vmid, config: e.config });
      return entries;
    }));
}
