// createProviderDeps (issue 28, SPEC 26): the one place a provider's deps
// and its waits are built, for the worker and the tests alike. What the
// worker passes it must reach the waits: the seam, the clock and sleep,
// budgets.pollMs, and the learned-times store every worker shares.
import { expect } from 'chai';
import { createProviderDeps } from '../../src/provider/deps.js';
import { waitTask } from '../../src/provider/tasks.js';
import type { Learned, LearnedTimesStore } from '../../src/provider/waits/learned-times.js';
import { silentLogger } from '../../src/log.js';
import { FakeProxmox } from '../fakes/fake-proxmox.js';
import { FakeClock } from '../fakes/clock.js';
import { testConfig } from './harness.js';

const opts = { what: 'a test task', budgetSeconds: 60 };

/** A store that answers what it is sent and keeps each sample. */
function recordingStore(): LearnedTimesStore & { samples: [string, number][] } {
  const samples: [string, number][] = [];
  const learned = (mean: number): Learned => ({ mean, spread: 0, samples: 1 });
  return {
    samples,
    read: () => Promise.resolve(new Map<string, Learned>()),
    add: (kind, sample) => {
      samples.push([kind, sample]);
      return Promise.resolve(learned(sample));
    },
    guess: (_kind, guessMs) => Promise.resolve(learned(guessMs)),
  };
}

describe('createProviderDeps (issue 28, SPEC 26)', () => {
  it('builds the waits over the options: the seam, the clock, budgets.pollMs and the learned-times store', async () => {
    const pve = new FakeProxmox({ taskPolls: 3 });
    const clock = new FakeClock();
    const store = recordingStore();
    const config = testConfig();
    const deps = createProviderDeps({ api: pve, config: { ...config, budgets: { ...config.budgets, pollMs: 2000 } }, logger: silentLogger(), now: clock.now, sleep: clock.sleep, learnedTimes: store });
    pve.addVm({ vmid: 150, node: 'pv1-1', config: { name: 'plain' } });
    const startedAt = clock.now().getTime();
    const polls: number[] = [];
    pve.on('nodeTasks', () => void polls.push(clock.now().getTime() - startedAt));
    await waitTask(deps, { signal: new AbortController().signal }, await pve.start('pv1-1', 150), opts);
    // The board's short polls on the deps' clock, from a pollMs of 2 s: pollMs/8, then doubling.
    expect(polls).to.deep.equal([250, 750, 1750, 3750]);
    expect(store.samples.map(([kind]) => kind)).to.deep.equal(['qmstart']);
    expect(deps.waits.expectations.expected('qmstart')).to.equal(store.samples[0]?.[1]);
  });

  it('each call builds waits of its own: one provider instance, one set of boards', () => {
    const options = { api: new FakeProxmox(), config: testConfig(), logger: silentLogger() };
    const a = createProviderDeps(options);
    const b = createProviderDeps(options);
    expect(a.waits).to.not.equal(b.waits);
    expect(a.waits.tasks).to.not.equal(b.waits.tasks);
    expect(a.storageShared).to.not.equal(b.storageShared);
  });
});
