// SPEC 30 over HTTP: a member-like VM made by the provider's create (our
// mark, our tag and the pool tag, its seed on ide2) is claimed against the
// simulator with its daemon model on; the simulated guest's
// authorized_keys then holds exactly the claimer's keys, and the VM its
// name, mark and tags, with the seed ejected. Issue 32's "a claim with
// sshKeys leaves exactly those keys in the simulated guest's
// authorized_keys".
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { createHttpApi } from '../../src/proxmox/http-api.js';
import { parseMark } from '../../src/provider/mark.js';
import { createProvider } from '../../src/provider/provider.js';
import { startSimulator } from '../../src/sim/index.js';
import { TOKEN } from './sim-helpers.js';

const MEMBER = 'pvep-pool-small-1';
const MEMBER_UID = '5a5a5a5a-0000-4000-8000-000000000001';
const CLAIMER = 'ci-runner-7';
const CLAIMER_UID = '7c7c7c7c-0000-4000-8000-000000000007';
const KEYS = [
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKo7kRlyCWLgmbAq3UtdA7kkXYKnhS1nAfIiAYVdoBs/ alice@laptop',
  // Any UTF-8 comment (SPEC 30): Agent.pm's own base64 would die on ✓ and 🔑 and write ö as Latin-1.
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOq3Y2Ypt2kWm0tB3WJn8h4zq6sWcC9mR3dYkD8tA1bB björn ✓ 🔑',
];

interface SimVmView {
  vmid: number;
  config: Record<string, string | number>;
}

describe('a claim against the simulator over HTTP (SPEC 30, 28)', function () {
  this.timeout(60_000);
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sim-claim-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("renames the member, ejects its seed, and leaves exactly the claimer's keys in the guest's authorized_keys", async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const sim = await startSimulator({ tokens: [TOKEN], nodes: ['pv1-1'], vms: 0, timeScale: 0.01 });
    try {
      const config = loadConfig({
        env: {},
        overrides: {
          proxmox: { tokenFile, caFile: '', nodes: [{ name: 'pv1-1', template: 9001, isoStorage: 'proxy-seeds' }] },
          budgets: { pollMs: 20, cloneSeconds: 30, taskSeconds: 30, runningSeconds: 30, addressSeconds: 30, firstAddressSeconds: 0.3 },
        },
      });
      const api = createHttpApi({ baseUrl: sim.url, tokenFile });
      const provider = createProvider({ api, config, logger: silentLogger() });
      const ctx = { signal: new AbortController().signal };
      const tag = config.proxmox.tag;

      // A member as the refill makes one: an ordinary create, then the pool tag beside ours.
      const member = await provider.create({ name: MEMBER, uid: MEMBER_UID, cores: 2, memoryMiB: 2048, diskGiB: 10, waitForAddress: true }, ctx);
      const memberConfig = await api.getConfig('pv1-1', member.vmid);
      await api.putConfig('pv1-1', member.vmid, { tags: `${String(memberConfig.tags)};${tag}-pool` });

      const claim = { pool: 'small', member: MEMBER, memberUid: MEMBER_UID, vmid: member.vmid, node: 'pv1-1', claimedAt: new Date().toISOString() };
      const spec = { name: CLAIMER, uid: CLAIMER_UID, cores: 2, memoryMiB: 2048, diskGiB: 10, waitForAddress: true, sshKeys: KEYS };
      const result = await provider.claim({ spec, claim, user: 'debian' }, ctx);
      expect(result).to.include({ vmid: member.vmid, node: 'pv1-1', uid: CLAIMER_UID, state: 'Running', origin: 'pool', address: member.address });

      const guests = (await (await fetch(`${sim.url}/_sim/guests`)).json()) as { guestFiles: { vmid: number; files: Record<string, string> }[] };
      expect(guests.guestFiles).to.deep.equal([{ vmid: member.vmid, node: 'pv1-1', files: { '/home/debian/.ssh/authorized_keys': `${KEYS[0]}\n${KEYS[1]}\n` } }]);

      const state = (await (await fetch(`${sim.url}/_sim/state`)).json()) as { vms: SimVmView[] };
      const vm = state.vms.find((v) => v.vmid === member.vmid);
      expect(vm?.config).to.include({ name: CLAIMER, ide2: 'none,media=cdrom' });
      expect(String(vm?.config.tags).split(';')).to.include(tag).and.not.include(`${tag}-pool`);
      expect(parseMark(String(vm?.config.description))).to.deep.equal({ uid: CLAIMER_UID, writtenAtCreate: member.createdAt });
    } finally {
      await sim.close();
    }
  });
});
