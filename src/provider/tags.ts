// Proxmox tag rules (F9): `;`-separated on read (`,` and spaces are also
// accepted on write), uppercase folded to lowercase, so compare folded.
const TAG_RULE = /^[a-z0-9_][a-z0-9_+.-]*$/i;

export function isValidTag(tag: string): boolean {
  return TAG_RULE.test(tag);
}

export function parseTags(tags: string | undefined): string[] {
  if (!tags) return [];
  return tags.split(/[;,\s]+/).filter((t) => t !== '');
}

export function hasTag(tags: string | undefined, tag: string): boolean {
  const want = tag.toLowerCase();
  return parseTags(tags).some((t) => t.toLowerCase() === want);
}

/** The tag a warm pool's member carries beside ours until a claim renames it (SPEC 30): `<tag>-pool`. */
export function poolTag(tag: string): string {
  return `${tag}-pool`;
}

/** The tags without `tag` (compared folded), in order. */
export function withoutTag(existing: string | undefined, tag: string): string {
  const drop = tag.toLowerCase();
  return parseTags(existing)
    .filter((t) => t.toLowerCase() !== drop)
    .join(';');
}

/** The template's tags, in order, plus ours when missing (SPEC 13 step 5). */
export function mergeTags(existing: string | undefined, ours: string): string {
  const tags = parseTags(existing);
  if (!hasTag(existing, ours)) tags.push(ours.toLowerCase());
  return tags.join(';');
}

/** The tag a VM of one cluster carries beside ours in the several-clusters form (SPEC 32): `<tag>-cluster-<name>`. */
export function clusterTag(tag: string, cluster: string): string {
  return `${tag}-cluster-${cluster}`.toLowerCase();
}

/** The clusters the tags name with clusterTag, folded. */
export function taggedClusters(tags: string | undefined, tag: string): string[] {
  const prefix = `${tag}-cluster-`.toLowerCase();
  return parseTags(tags).flatMap((t) => (t.toLowerCase().startsWith(prefix) && t.length > prefix.length ? [t.toLowerCase().slice(prefix.length)] : []));
}
