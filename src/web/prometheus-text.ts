// Joins several Prometheus text expositions into one. BullMQ's
// Queue.exportPrometheusMetrics() declares `# HELP`/`# TYPE` for its
// families in every queue's text; a scrape with the same family declared
// twice is rejected, so samples are grouped under one declaration. A
// library family whose name promtool's lint refuses is served renamed.
interface Family {
  header: string[];
  samples: string[];
}

function familyOf(sampleOrComment: string): string | undefined {
  const comment = /^#\s+(?:HELP|TYPE)\s+(\S+)/.exec(sampleOrComment);
  if (comment) return comment[1];
  if (sampleOrComment.startsWith('#')) return undefined;
  return /^([A-Za-z_:][A-Za-z0-9_:]*)/.exec(sampleOrComment)?.[1];
}

/**
 * Library families served under another name. BullMQ's gauge of jobs by
 * queue and state ends in `_count`, which Prometheus reserves for a
 * histogram's or summary's count (promtool check metrics refuses it).
 */
export const RENAMED_FAMILIES: Readonly<Record<string, string>> = { bullmq_job_count: 'bullmq_jobs' };

const NAME_AT_START = /^(#\s+(?:HELP|TYPE)\s+)?([A-Za-z_:][A-Za-z0-9_:]*)/;

function withOurName(line: string): string {
  const match = NAME_AT_START.exec(line);
  const renamed = match?.[2] === undefined ? undefined : RENAMED_FAMILIES[match[2]];
  if (match === null || renamed === undefined) return line;
  return `${match[1] ?? ''}${renamed}${line.slice(match[0].length)}`;
}

export function mergeExpositions(texts: readonly string[]): string {
  const families = new Map<string, Family>();
  for (const text of texts) {
    for (const line of text.split('\n').map(withOurName)) {
      if (line.trim() === '') continue;
      const name = familyOf(line);
      if (name === undefined) continue;
      // Histogram and summary samples (_bucket, _sum, _count) stay in their declared family.
      const base = name.replace(/_(bucket|sum|count)$/, '');
      const key = families.has(name) || !families.has(base) ? name : base;
      let family = families.get(key);
      if (family === undefined) {
        family = { header: [], samples: [] };
        families.set(key, family);
      }
      if (line.startsWith('#')) {
        if (!family.header.includes(line)) family.header.push(line);
      } else {
        family.samples.push(line);
      }
    }
  }
  const out: string[] = [];
  for (const family of families.values()) out.push(...family.header, ...family.samples);
  return `${out.join('\n')}\n`;
}
