// NoCloud user-data (SPEC 20): the job's own, else the smallest cloud-config
// that cloud-init accepts (`#cloud-config` alone is "not a YAML dict").

const DEFAULT_USER_DATA = '#cloud-config\n{}\n';

export function userData(given: string | undefined): string {
  return given ?? DEFAULT_USER_DATA;
}
