// NoCloud meta-data (SPEC 20, 27): instance-id and local-hostname, both the
// VM name, and `public-keys` when the job has sshKeys. cloud-init's ssh
// module gives the datasource's public keys to the default user and adds
// the user-data's own `ssh_authorized_keys` to them (cc_ssh.py), so the
// keys hold whatever user-data the job brings (docs/decisions.md).
// Values are YAML double-quoted scalars with every character outside
// printable ASCII escaped, so a name such as `yes` or `123` stays a string
// and no comment of a key can break the YAML that PyYAML reads.
import { yamlQuoted } from './yaml-quote.js';

export function metaData(name: string, sshKeys: readonly string[] = []): string {
  const value = yamlQuoted(name);
  const keys = sshKeys.length === 0 ? '' : `public-keys:\n${sshKeys.map((key) => `  - ${yamlQuoted(key)}\n`).join('')}`;
  return `instance-id: ${value}\nlocal-hostname: ${value}\n${keys}`;
}
