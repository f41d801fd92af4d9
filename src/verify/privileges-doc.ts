// The README's "On your own cluster" block, generated from the privilege
// list (privileges.ts) by `npm run docs:privileges`;
// test/verify/privileges.test.ts fails when the README's copy differs.
import { PRIVILEGES, ROLES, rolePrivileges, type PathKind } from './privileges.js';

export const PRIVILEGES_BLOCK = /<!-- privileges:start -->\n[\s\S]*?<!-- privileges:end -->/;

const WHERE: Record<PathKind, string> = {
  template: '/vms/<template vmid>',
  vms: '/vms/<vmidRange.min>',
  isoStorage: '/storage/<isoStorage>',
  cloneStorage: '/storage/<storage, else the template\'s disks\'>',
  bridge: '/sdn/zones/localnetwork/<bridge>[/<vlanTag>]',
  root: '/',
};

const GRANT: [PathKind, string][] = [
  ['vms', '/vms'],
  ['isoStorage', '/storage/<isoStorage>'],
  ['cloneStorage', '/storage/<clone storage>'],
  ['bridge', '/sdn/zones/localnetwork/<bridge>'],
  ['root', '/'],
];

function commands(): string[] {
  const lines = [...rolePrivileges()].map(([role, privs]) => `pveum role add ${role} -privs "${privs.join(',')}"`);
  lines.push('pveum user add provisioner@pve', 'pveum user token add provisioner@pve service --privsep 1');
  for (const [kind, path] of GRANT) {
    lines.push(`pveum aclmod ${path} -user provisioner@pve -role ${ROLES[kind]}`, `pveum aclmod ${path} -token 'provisioner@pve!service' -role ${ROLES[kind]}`);
  }
  return lines;
}

/** The block's body (between its markers). */
export function privilegesMarkdown(): string {
  const table = PRIVILEGES.map((r) => `| \`${r.privilege}\` | \`${WHERE[r.on]}\` | ${r.why} | ${r.feature} |`);
  return [
    'Each kind of path gets a role holding only what is needed there (a role on `/` would hand every privilege to every path below it). A token with privilege separation holds what both its user and it are granted, so grant both; Proxmox has no ACL on a VMID range, so the VMs\' role goes on `/vms`, and with a VLAN tag the grant on the bridge covers its VLANs. Replace the `<...>` with your config\'s values, once per storage and bridge:',
    '',
    '```sh',
    ...commands(),
    '```',
    '',
    '| privilege | path | why | for |',
    '|---|---|---|---|',
    ...table,
  ].join('\n');
}

/** The README with its block regenerated. */
export function withPrivilegesBlock(readme: string): string {
  if (!PRIVILEGES_BLOCK.test(readme)) throw new Error('README.md has no <!-- privileges:start --> ... <!-- privileges:end --> block');
  return readme.replace(PRIVILEGES_BLOCK, `<!-- privileges:start -->\n${privilegesMarkdown()}\n<!-- privileges:end -->`);
}
