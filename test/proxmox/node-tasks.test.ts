// SPEC 26: GET /nodes/{node}/tasks answers as pve-manager's Tasks.pm
// `node_tasks` does, in the simulator (through the HTTP client) and in the
// in-memory fake alike: running tasks first with `status: RUNNING` and the
// UPID's `user!token`, then finished ones with their exit status,
// `endtime` and `user`/`tokenid` apart, newest first; `since`, `limit`
// (0 returns nothing), `userfilter` (a substring of `user`), `typefilter`.
import { expect } from 'chai';
import type { ProxmoxApi, TaskListEntry, Upid } from '../../src/proxmox/api.js';
import { parseUpid } from '../../src/provider/tasks.js';
import { FakeProxmox } from '../fakes/fake-proxmox.js';
import { fakeWorld, simWorld, type World } from '../sim/contract-worlds.js';

async function ended(world: World, api: ProxmoxApi, upid: Upid): Promise<void> {
  for (let i = 0; i < 10; i += 1) {
    if ((await api.taskStatus('pv1-1', upid)).status === 'stopped') return;
    world.tick();
  }
  throw new Error(`task ${upid} did not end`);
}

const brief = (entries: TaskListEntry[]): string[][] => entries.map((e) => [parseUpid(e.upid).type, e.status ?? '', e.user]);

for (const make of [simWorld, fakeWorld]) {
  describe(`the node's task listing (SPEC 26): ${make === simWorld ? 'simulator over HTTP' : 'in-memory fake'}`, () => {
    let world: World;
    let first: Upid;
    let second: Upid;
    let later: Upid;
    before(async () => {
      world = await make(['pv1-1']);
      await world.plant('pv1-1', 150, { name: 'plain', memory: 512 });
      await world.plant('pv1-1', 151, { name: 'other', memory: 512 });
      await world.plant('pv1-1', 152, { name: 'third', memory: 512 });
      first = await world.api.start('pv1-1', 150);
      await ended(world, world.api, first);
      world.tick();
      later = await world.api.start('pv1-1', 152);
      await ended(world, world.api, later);
      world.tick();
      // The fake ends a task after its polls, and each listing is one: this one outlasts the suite.
      if (world.api instanceof FakeProxmox) world.api.taskPolls = 1000;
      second = await world.api.start('pv1-1', 151);
    });
    after(async () => world.close());

    it('lists the running task first, then the finished ones newest first with their exit status', async () => {
      const entries = await world.api.nodeTasks('pv1-1', { source: 'all', limit: 100 });
      expect(brief(entries)).to.deep.equal([
        ['qmstart', 'RUNNING', 'root@pam!provisioner'],
        ['qmstart', 'OK', 'root@pam'],
        ['qmstart', 'OK', 'root@pam'],
      ]);
      expect(entries.map((e) => e.upid)).to.deep.equal([second, later, first]);
      expect(entries[0]?.endtime).to.equal(undefined);
      expect(entries[2]).to.include({ upid: first, tokenid: 'provisioner' });
      expect(entries[2]?.endtime).to.be.a('number');
    });

    it('the default source is the archive alone; active lists the running ones alone', async () => {
      expect((await world.api.nodeTasks('pv1-1', { limit: 100 })).map((e) => e.upid)).to.include(first).and.not.include(second);
      expect((await world.api.nodeTasks('pv1-1', { source: 'active', limit: 100 })).map((e) => e.upid)).to.include(second).and.not.include(first);
    });

    it('limit counts entries down: 0 lists none, 1 the running one', async () => {
      expect(await world.api.nodeTasks('pv1-1', { source: 'all', limit: 0 })).to.deep.equal([]);
      expect((await world.api.nodeTasks('pv1-1', { source: 'all', limit: 1 })).map((e) => e.upid)).to.deep.equal([second]);
    });

    it('since leaves out tasks that started before it', async () => {
      const since = parseInt(second.split(':')[4] ?? '0', 16);
      expect((await world.api.nodeTasks('pv1-1', { source: 'all', since, limit: 100 })).map((e) => e.upid)).to.deep.equal([second]);
    });

    it("userfilter matches within user: the token's user finds both, the full token id only the running one", async () => {
      const byUser = (await world.api.nodeTasks('pv1-1', { source: 'all', userfilter: 'ROOT@pam', limit: 100 })).map((e) => e.upid);
      expect(byUser).to.include(first).and.include(second);
      const byToken = (await world.api.nodeTasks('pv1-1', { source: 'all', userfilter: 'root@pam!provisioner', limit: 100 })).map((e) => e.upid);
      expect(byToken).to.deep.equal([second]);
      expect(await world.api.nodeTasks('pv1-1', { source: 'all', userfilter: 'alice@pve', limit: 100 })).to.deep.equal([]);
    });

    it('typefilter is an exact type', async () => {
      expect(await world.api.nodeTasks('pv1-1', { source: 'all', typefilter: 'qmstop', limit: 100 })).to.deep.equal([]);
      expect((await world.api.nodeTasks('pv1-1', { source: 'all', typefilter: 'qmstart', limit: 100 })).length).to.equal(3);
    });
  });
}
