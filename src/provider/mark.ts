// The ownership mark written into `description` by the clone call
// (SPEC 11, F10, F11): a fixed first line, the uid, the creation time, and
// in the several-clusters form the cluster (SPEC 32).
export const MARK_FIRST_LINE = 'managed-by: pve-provisioner';

export interface Mark {
  uid?: string;
  /** RFC 3339; the clone's `meta` is the template's, so this is the only creation time (F11). */
  writtenAtCreate?: string;
  /** The cluster that made it (SPEC 32); absent on the one-cluster form's marks: the first cluster's. */
  cluster?: string;
}

/** The mark; `cluster` only in the several-clusters form (SPEC 32), so the one-cluster form's mark is as it always was. */
export function formatMark(uid: string, writtenAt: Date, cluster?: string): string {
  const mark = `${MARK_FIRST_LINE}\nuid: ${uid}\nwritten-at-create: ${writtenAt.toISOString()}`;
  return cluster === undefined ? mark : `${mark}\ncluster: ${cluster}`;
}

/**
 * Reads a mark back, tolerating CRLF, surrounding blank lines, stray
 * spaces and lines an operator added below. Without the first line it is
 * no mark at all.
 */
export function parseMark(description: string | undefined): Mark | undefined {
  if (description === undefined) return undefined;
  const lines = description.split(/\r?\n/).map((l) => l.trim());
  const first = lines.findIndex((l) => l !== '');
  if (first < 0 || lines[first] !== MARK_FIRST_LINE) return undefined;
  const mark: Mark = {};
  for (const line of lines.slice(first + 1)) {
    const m = /^([a-z-]+):\s*(.*)$/.exec(line);
    if (!m?.[1] || m[2] === undefined) continue;
    if (m[1] === 'uid' && mark.uid === undefined && m[2] !== '') mark.uid = m[2];
    if (m[1] === 'written-at-create' && mark.writtenAtCreate === undefined && m[2] !== '') mark.writtenAtCreate = m[2];
    if (m[1] === 'cluster' && mark.cluster === undefined && m[2] !== '') mark.cluster = m[2];
  }
  return mark;
}

/** Ours only when the name and the mark's uid both match (SPEC 11). */
export function isOurs(config: { name?: string; description?: string }, name: string, uid: string): boolean {
  return config.name === name && parseMark(config.description)?.uid === uid;
}
