// SPEC 28: the client's route table says which calls run in a pvedaemon
// worker (`protected => 1`) and which go to `{node}` (`proxyto`), as the
// Perl API modules register them. The official schema
// (vendor/pve-api/apidata.json) is generated from those modules and
// carries both flags, so every route is checked against it.
import { expect } from 'chai';
import { schemaByPath } from '../support/api-schema.js';
import { DAEMON_WORST_CASES } from '../../src/proxmox/daemon-worst-cases.js';
import { ROUTES } from '../../src/proxmox/routes.js';
import type { RouteName } from '../../src/proxmox/routes.js';

interface SchemaMethod {
  protected?: number;
  proxyto?: string;
}
const byPath = schemaByPath<SchemaMethod>();

describe('the route table marks where Proxmox runs each call (SPEC 28)', () => {
  for (const [name, route] of Object.entries(ROUTES) as [RouteName, (typeof ROUTES)[RouteName]][]) {
    it(`${name}: ${route.method} ${route.template} is marked protected and proxyto as apidata.json registers it`, () => {
      const method = byPath.get(route.template)?.info?.[route.method];
      expect(method, `${route.method} ${route.template} in apidata.json`).to.not.equal(undefined);
      expect(route.protected, 'protected').to.equal(method?.protected === 1);
      expect(route.proxyto, 'proxyto').to.equal(method?.proxyto === 'node');
    });
  }

  it('the upload and the cluster status alone run in the pvedaemon of the node they entered, not of {node} (pve-storage Status.pm upload, pve-manager Cluster.pm get_status have no proxyto)', () => {
    const entered = (Object.keys(ROUTES) as RouteName[]).filter((name) => ROUTES[name].protected && !ROUTES[name].proxyto);
    expect(entered.sort()).to.deep.equal(['clusterStatus', 'upload']);
  });

  it('every protected route, and no other, has its worst case in pvedaemon (daemon-worst-cases.ts)', () => {
    const protectedRoutes = (Object.keys(ROUTES) as RouteName[]).filter((name) => ROUTES[name].protected).sort();
    expect(Object.keys(DAEMON_WORST_CASES).sort()).to.deep.equal(protectedRoutes);
  });
});
