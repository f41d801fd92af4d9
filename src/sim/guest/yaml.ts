// cloud-init reads its YAML with PyYAML's safe_load, which speaks YAML 1.1
// (an unquoted 52:54:00:12:34:56 is a base-60 number there) and lets a
// repeated key keep its last value; the `yaml` package does both when asked.
import { parse } from 'yaml';

/** The document, or a one-line reason it is not YAML. */
export function parseCloudYaml(text: string): { value: unknown } | { problem: string } {
  try {
    return { value: parse(text, { version: '1.1', uniqueKeys: false, prettyErrors: false }) as unknown };
  } catch (err) {
    return { problem: (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? 'not YAML' };
  }
}

export function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
