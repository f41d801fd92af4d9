// SPEC 33: the privilege list (src/verify/privileges.ts) covers every
// route's schema check (vendor/pve-api/apidata.json), so a seam method
// cannot be added without its privilege; the README's block is generated
// from it; and it expands to the paths a config names.
import { expect } from 'chai';
import { schemaByPath } from '../support/api-schema.js';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../src/config/index.js';
import { ROUTES, ROUTE_NAMES } from '../../src/proxmox/routes.js';
import type { RouteName } from '../../src/proxmox/routes.js';
import { PRIVILEGES, expandPrivileges, type PathKind } from '../../src/verify/privileges.js';
import { PRIVILEGES_BLOCK, withPrivilegesBlock } from '../../src/verify/privileges-doc.js';

interface Permissions {
  user?: string;
  check?: unknown[];
  description?: string;
}
const byPath = schemaByPath<{ permissions?: Permissions }>();

const permissionsOf = (name: RouteName): Permissions | undefined => byPath.get(ROUTES[name].template)?.info?.[ROUTES[name].method]?.permissions;

/** The kinds of the list's paths an ACL path template of the schema can be. */
function kindsFor(aclTemplate: string): PathKind[] {
  if (/^\/vms\/\{(vmid|newid)\}$/.test(aclTemplate)) return ['template', 'vms'];
  if (aclTemplate === '/storage/{storage}') return ['isoStorage', 'cloneStorage'];
  if (aclTemplate === '/nodes/{node}' || aclTemplate === '/') return ['root'];
  return [];
}

const listed = (privilege: string, kinds: PathKind[]): boolean => PRIVILEGES.some((r) => r.privilege === privilege && kinds.includes(r.on));

/** Whether the list satisfies a check as exec_api2_perm_check would (a `require_param` the client never sends fails its branch). */
function covered(check: unknown[]): boolean {
  const [test, ...rest] = check;
  if (test === 'and') return rest.every((sub) => covered(sub as unknown[]));
  if (test === 'or') return rest.some((sub) => covered(sub as unknown[]));
  const [path, privs, ...options] = rest as [string, string[], ...unknown[]];
  if (options.includes('require_param')) return false;
  const kinds = kindsFor(path);
  return options.includes('any') ? privs.some((p) => listed(p, kinds)) : privs.every((p) => listed(p, kinds));
}

/** Routes whose schema says `user: all` with nothing to grant for what the service asks, and why. */
const NOTHING_TO_GRANT: Partial<Record<RouteName, string>> = {
  version: 'every user may read it',
  nodes: 'every user may list the nodes',
  clusterResources: 'lists what the token may see; VM.Audit on the VMs is in the list',
  // Its description's Sys.Audit on /access is for another user's permissions.
  permissions: 'a token reads its own permissions',
  networks: 'lists the bridges the token has SDN.Use on (Network.pm 492-502): SDN.Use is in the list',
};

describe('the privilege list covers every route (SPEC 33)', () => {
  for (const name of ROUTE_NAMES) {
    it(`${name}: ${ROUTES[name].method} ${ROUTES[name].template}`, () => {
      const perms = permissionsOf(name);
      expect(perms, 'permissions in apidata.json').to.not.equal(undefined);
      if (perms?.check !== undefined) {
        expect(covered(perms.check), JSON.stringify(perms.check)).to.equal(true);
        return;
      }
      expect(perms?.user).to.equal('all');
      if (NOTHING_TO_GRANT[name] !== undefined) return;
      const named = [...(perms?.description ?? '').matchAll(/'?((?:VM|Datastore|Sys|SDN)\.[A-Za-z.]*[A-Za-z])'?/g)].map((m) => m[1] ?? '');
      expect(named, `${name}: its description names no privilege: say why in NOTHING_TO_GRANT, or give it a rule`).to.not.deep.equal([]);
      // A `user: all` route checks in its handler what its description says: one privilege it names is in a rule listing the route.
      const rules = PRIVILEGES.filter((r) => r.routes.includes(name)).map((r) => r.privilege);
      expect(named.some((p) => rules.includes(p)), `${perms?.description ?? ''} / rules: ${rules.join(', ')}`).to.equal(true);
    });
  }

  it('each rule names only routes that exist', () => {
    expect(PRIVILEGES.flatMap((r) => r.routes).filter((route) => !ROUTE_NAMES.includes(route))).to.deep.equal([]);
  });
});

describe('the README\'s set-up section and the privilege list (SPEC 33)', () => {
  it('holds the block `npm run docs:privileges` generates from the list', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(PRIVILEGES_BLOCK.test(readme)).to.equal(true);
    expect(readme, 'run npm run docs:privileges').to.equal(withPrivilegesBlock(readme));
  });
});

describe('the list expanded for a config (SPEC 33)', () => {
  const config = loadConfig({
    env: {},
    overrides: {
      proxmox: {
        nodes: [
          { name: 'pve1', template: 9001, isoStorage: 'proxy-seeds', bridge: 'vmbr1', vlanTag: 30 },
          { name: 'pve2', template: 9002, isoStorage: 'proxy-seeds', storage: 'fast' },
        ],
      },
    },
  });
  const needs = expandPrivileges(config, [
    { node: 'pve1', vmid: 9001, bridge: 'vmbr0', storages: ['local-lvm'] },
    { node: 'pve2', vmid: 9002, bridge: 'vmbr0', tag: 4, storages: ['local-lvm'] },
  ]);
  const at = (path: string): string[] => needs.filter((n) => n.path === path).map((n) => n.privilege);

  it('names each template, the VMID range\'s first VMID, the seed storage, the clone storage and the bridges with their VLAN paths', () => {
    expect(at('/vms/9001')).to.deep.equal(['VM.Audit', 'VM.Clone']);
    expect(at(`/vms/${config.proxmox.vmidRange.min}`)).to.include.members(['VM.Allocate', 'VM.PowerMgmt', 'VM.Config.Network']);
    expect(at('/storage/proxy-seeds')).to.deep.equal(['Datastore.AllocateTemplate', 'Datastore.Allocate', 'Datastore.Audit']);
    expect(at('/storage/local-lvm')).to.deep.equal(['Datastore.AllocateSpace']);
    expect(at('/storage/fast')).to.deep.equal(['Datastore.AllocateSpace']);
    expect(needs.filter((n) => n.privilege === 'SDN.Use').map((n) => n.path)).to.deep.equal([
      '/sdn/zones/localnetwork/vmbr0',
      '/sdn/zones/localnetwork/vmbr1/30',
      '/sdn/zones/localnetwork/vmbr0/4',
    ]);
    expect(at('/')).to.deep.equal(['Sys.Audit']);
  });

  it('grants the VMs\' privileges on /vms, the rest where they are checked', () => {
    expect(needs.find((n) => n.privilege === 'VM.Allocate')?.grantPath).to.equal('/vms');
    expect(needs.find((n) => n.path === '/storage/proxy-seeds')?.grantPath).to.equal('/storage/proxy-seeds');
  });

  it('asks VM.GuestAgent.FileWrite only of a config with warm pools, whose claims write keys through the agent (SPEC 30)', () => {
    expect(needs.map((n) => n.privilege), 'no pools').not.to.include('VM.GuestAgent.FileWrite');
    const pooled = loadConfig({
      env: {
        PROXMOX_IMAGES: JSON.stringify([{ name: 'debian', templates: { pve1: 9001 }, user: 'debian' }]),
        POOLS: JSON.stringify([{ name: 'web', minIdle: 1 }]),
      },
      overrides: { proxmox: { nodes: [{ name: 'pve1', isoStorage: 'proxy-seeds' }] } },
    });
    const fileWrite = expandPrivileges(pooled).filter((n) => n.privilege === 'VM.GuestAgent.FileWrite');
    expect(fileWrite.map((n) => [n.path, n.grantPath])).to.deep.equal([[`/vms/${pooled.proxmox.vmidRange.min}`, '/vms']]);
  });
});
