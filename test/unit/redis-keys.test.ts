// src/redis-keys.ts: a key is data a running deployment already has. A
// worker of the next release shares Redis with one of this release during
// a rolling upgrade, so each key's text stays as it is: another sweep-lock
// key would let two sweeps run at once (SPEC 5), another learned-times key
// would start every worker cold (SPEC 26). The keys issue 28 moved here
// are pinned as their old builders wrote them.
import { expect } from 'chai';
import { keys } from '../../src/redis-keys.js';

describe('the Redis keys moved into src/redis-keys.ts (issue 28)', () => {
  it('the sweep lock, the sweep\'s jobs and the learned times keep their text', () => {
    expect(keys.sweepLock('pvep')).to.equal('pvep:reconciler:sweep-lock');
    expect(keys.reconcilerJobs('pvep')).to.equal('pvep:reconciler:jobs');
    expect(keys.learnedTimes('pvep')).to.equal('{pvep}:learned-times');
  });

  it("the request budget's and the daemon slots' keys keep their text, under the prefix's hash tag (SPEC 25, 28)", () => {
    expect(keys.proxmoxBudget('pvep')).to.deep.equal(['{pvep}:proxmox-budget:pace', '{pvep}:proxmox-budget:ceiling']);
    expect(keys.proxmoxBudget('pvep', 'pve2')).to.deep.equal(['{pvep}:proxmox-budget:pve2:pace', '{pvep}:proxmox-budget:pve2:ceiling']);
    expect(keys.daemonSlots('pvep', 'pve1')).to.equal('{pvep}:proxmox-daemon-slots:pve1');
  });
});
