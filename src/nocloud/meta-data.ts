// NoCloud meta-data (SPEC 20): instance-id and local-hostname, both the
// VM name. The values are YAML double-quoted scalars (JSON strings are
// valid YAML), so a name such as `yes` or `123` stays a string.

export function metaData(name: string): string {
  const value = JSON.stringify(name);
  return `instance-id: ${value}\nlocal-hostname: ${value}\n`;
}
