// verify's api group (SPEC 33): the version it accepts. The privilege list
// names VM.GuestAgent.Audit, which Proxmox VE 9.0 brought, so an 8.x host
// fails here with the upgrade to do, not later with a privilege it cannot
// grant.
import { expect } from 'chai';
import { loadConfig } from '../../src/config/index.js';
import type { ProxmoxApi, VersionInfo } from '../../src/proxmox/api.js';
import { checkApi } from '../../src/verify/checks/api.js';
import type { VerifyContext } from '../../src/verify/context.js';
import { emptyInventory } from '../../src/verify/run-checks.js';

function contextAnswering(version: string): VerifyContext {
  const config = loadConfig({ env: {}, overrides: { proxmox: { url: 'https://pve1.example:8006', tokenFile: '/nonexistent/token', nodes: [{ name: 'pve1', template: 9001, isoStorage: 'local' }] } } });
  const info: VersionInfo = { release: version.split('.').slice(0, 2).join('.'), version, repoid: '0123abcd' };
  const api = { version: () => Promise.resolve(info) } as unknown as ProxmoxApi;
  return { config, api, tokenId: 'root@pam!provisioner', proxmoxUrl: config.proxmox.url, inventory: emptyInventory(), templates: () => Promise.resolve([]) };
}

describe("verify's api group: the version (SPEC 33)", () => {
  it('8.4 fails with the upgrade to 9.0, the version it found named', async () => {
    const [answers, version] = await checkApi(contextAnswering('8.4.14'));
    expect(answers?.status).to.equal('ok');
    expect(version).to.deep.include({ status: 'fail', name: 'Proxmox VE 9.0 or later', detail: 'Proxmox VE 8.4.14' });
    expect(version?.fix).to.match(/^upgrade the cluster to Proxmox VE 9\.0 or later/);
  });

  it('9.0 and later pass', async () => {
    for (const v of ['9.0.3', '9.2.20', '10.0.1']) {
      const [, version] = await checkApi(contextAnswering(v));
      expect(version?.status, v).to.equal('ok');
    }
  });
});
