// The pvedaemon slots per node (SPEC 28) against the real Redis, each test
// under a prefix of its own: several processes (separate connections)
// share a node's slots, each node has its own, a call given up keeps its
// slot for its worst case and then frees it, a job's signal takes a call
// out of the line, and with Redis unreachable each process keeps its own
// count per node.
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { holdDaemonSlot, takeDaemonSlot } from '../../src/proxmox/daemon-slot-script.js';
import { keys } from '../../src/redis-keys.js';
import { createDaemonSlots } from '../../src/proxmox/daemon-slots.js';
import type { DaemonSlot, DaemonSlots, DaemonSlotsOptions } from '../../src/proxmox/daemon-slots.js';
import { scaledByLoad } from '../support/machine.js';
import { REDIS_URL, uniquePrefix } from '../support/redis.js';

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Tracked {
  state: 'pending' | 'granted' | 'refused';
  slot?: DaemonSlot;
  reason?: unknown;
}

function track(promise: Promise<DaemonSlot>): Tracked {
  const tracked: Tracked = { state: 'pending' };
  promise.then(
    (slot) => Object.assign(tracked, { state: 'granted', slot }),
    (reason: unknown) => Object.assign(tracked, { state: 'refused', reason }),
  );
  return tracked;
}

async function until(check: () => boolean, what: string, limitMs = 15_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > limitMs) throw new Error(`still waiting for ${what}`);
    await pause(10);
  }
}

describe('pvedaemon slots per node across worker processes (SPEC 28)', function () {
  this.timeout(30_000);
  let prefix: string;
  let admin: Redis;
  const made: DaemonSlots[] = [];

  function slots(options: Partial<DaemonSlotsOptions> = {}): DaemonSlots {
    const one = createDaemonSlots({
      redis: options.redis ?? new Redis(REDIS_URL, { commandTimeout: 1000, maxRetriesPerRequest: 1 }),
      prefix,
      slotsPerNode: 2,
      logger: silentLogger(),
      ...options,
    });
    made.push(one);
    return one;
  }

  beforeEach(() => {
    prefix = uniquePrefix('daemon-slots');
    admin = new Redis(REDIS_URL);
  });

  afterEach(async () => {
    for (const one of made.splice(0)) await one.close();
    await admin.del(keys.daemonSlots(prefix, 'pve1'), keys.daemonSlots(prefix, 'pve2'));
    admin.disconnect();
  });

  it('never lets three processes hold more than slotsPerNode calls on one node, and serves every call', async () => {
    const processes = [slots(), slots(), slots()];
    let inFlight = 0;
    let peak = 0;
    const call = async (one: DaemonSlots): Promise<void> => {
      const slot = await one.take('pve1', 'agentInterfaces', 10_000);
      slot.sent();
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await pause(30);
      inFlight -= 1;
      slot.answered();
    };
    await Promise.all(processes.flatMap((one) => Array.from({ length: 4 }, () => call(one))));
    expect(peak).to.equal(2);
  });

  it('keeps each node\'s slots apart: a full pve1 does not hold back pve2', async () => {
    const one = slots();
    const other = slots();
    const held = [await one.take('pve1', 'clone', 10_000), await other.take('pve1', 'start', 10_000)];
    const third = track(one.take('pve1', 'stop', 10_000));
    const elsewhere = await other.take('pve2', 'clone', 10_000);
    expect(third.state).to.equal('pending');
    elsewhere.answered();
    held[0]?.answered();
    await until(() => third.state === 'granted', 'the third pve1 call');
    held[1]?.answered();
    third.slot?.answered();
  });

  it('keeps its slots under the {prefix} hash tag with a TTL, so they live in one Cluster slot and clean themselves up', async () => {
    const slot = await slots().take('pve1', 'clone', 10_000);
    const key = keys.daemonSlots(prefix, 'pve1');
    expect(key).to.equal(`{${prefix}}:proxmox-daemon-slots:pve1`);
    expect(await admin.zcard(key)).to.equal(1);
    expect(await admin.pttl(key)).to.be.greaterThan(0);
    slot.answered();
  });

  it('keeps an abandoned call\'s slot for its worst case counted from its send, then frees it', async () => {
    const one = slots({ slotsPerNode: 1 });
    const worstCaseMs = 1_500;
    const abandoned = await one.take('pve1', 'agentInterfaces', worstCaseMs);
    abandoned.sent();
    const sentAt = Date.now();
    await pause(1_000);
    abandoned.abandoned('sent');
    // Another process, so no wake-up of this process helps it.
    const next = track(slots({ slotsPerNode: 1 }).take('pve1', 'statusCurrent', 10_000));
    await pause(200);
    expect(next.state, 'while pvedaemon may still run the abandoned call').to.equal('pending');
    await until(() => next.state === 'granted', 'the slot after the worst case');
    const heldMs = Date.now() - sentAt;
    expect(heldMs).to.be.at.least(worstCaseMs - 50);
    // Counted from the send, not from the moment it was given up.
    expect(heldMs).to.be.below(1_000 + worstCaseMs);
    next.slot?.answered();
  });

  it('keeps a call given up with "givenUp" (a 596, an upload) for its whole worst case from then', async () => {
    const one = slots({ slotsPerNode: 1 });
    const worstCaseMs = 800;
    const abandoned = await one.take('pve1', 'upload', worstCaseMs);
    abandoned.sent();
    await pause(worstCaseMs + 200);
    const givenUpAt = Date.now();
    abandoned.abandoned('givenUp');
    const next = track(slots({ slotsPerNode: 1 }).take('pve1', 'clone', 10_000));
    await until(() => next.state === 'granted', 'the slot after the worst case');
    expect(Date.now() - givenUpAt).to.be.at.least(worstCaseMs - 50);
    next.slot?.answered();
  });

  it('frees at once the slot of a call given up after its worst case has passed since its send', async () => {
    const one = slots({ slotsPerNode: 1 });
    const abandoned = await one.take('pve1', 'taskStatus', 200);
    abandoned.sent();
    await pause(400);
    abandoned.abandoned('sent');
    const next = track(slots({ slotsPerNode: 1 }).take('pve1', 'clone', 10_000));
    await until(() => next.state === 'granted', 'the freed slot', 5_000);
    next.slot?.answered();
  });

  it('frees at once the slot of a call given up before it was sent', async () => {
    const one = slots({ slotsPerNode: 1 });
    const unsent = await one.take('pve1', 'clone', 60_000);
    unsent.abandoned('sent');
    const next = track(slots({ slotsPerNode: 1 }).take('pve1', 'clone', 10_000));
    await until(() => next.state === 'granted', 'the freed slot', 5_000);
    next.slot?.answered();
  });

  it('keeps a pending call\'s slot however long it takes, renewing its lease', async () => {
    const leaseMs = 600;
    const one = slots({ slotsPerNode: 1, leaseMs });
    const pending = await one.take('pve1', 'clone', 0);
    pending.sent();
    const next = track(slots({ slotsPerNode: 1, leaseMs }).take('pve1', 'clone', 0));
    await pause(4 * leaseMs);
    expect(next.state, 'while the call is still pending').to.equal('pending');
    pending.answered();
    await until(() => next.state === 'granted', 'the answered slot');
    next.slot?.answered();
  });

  for (const [when, pendingLeases] of [['right after its send', 0], ['after its slot was renewed', 2]] as const) {
    it(`frees a crashed worker's slot (dead ${when}) no sooner than its call's worst case and at most a lease later, not a request timeout later`, async () => {
      const leaseMs = 300;
      const worstCaseMs = 1_500;
      const crashed = slots({ slotsPerNode: 1, leaseMs });
      const slot = await crashed.take('pve1', 'clone', worstCaseMs);
      slot.sent();
      const sentAt = Date.now();
      await pause(pendingLeases * leaseMs);
      // The worker dies: no renewal, no answer, ever.
      await crashed.close();
      const diedAt = Date.now();
      const next = track(slots({ slotsPerNode: 1 }).take('pve1', 'clone', 10_000));
      await until(() => next.state === 'granted', 'the crashed worker\'s slot');
      expect(Date.now() - sentAt, 'pvedaemon may run the call that long').to.be.at.least(worstCaseMs - 50);
      expect(Date.now() - diedAt, 'a lease after the worst case at most').to.be.below(leaseMs + worstCaseMs + scaledByLoad(1_000));
      next.slot?.answered();
    });
  }

  it('never brings back a slot whose lease ran out: a late renewal leaves it to whoever took it', async () => {
    const key = keys.daemonSlots(prefix, 'pve1');
    const shape = { limit: 1, pollUs: 25_000 };
    expect(await takeDaemonSlot(admin, key, 'late', shape, 1_000)).to.equal(0);
    await pause(20);
    await holdDaemonSlot(admin, key, 'late', 60_000_000);
    expect(await takeDaemonSlot(admin, key, 'next', shape, 60_000_000)).to.equal(0);
    expect(await admin.zrange(key, 0, -1)).to.deep.equal(['next']);
  });

  it('takes a waiting call out of the line as soon as its job is cancelled, with the reason, and serves the next', async () => {
    const one = slots({ slotsPerNode: 1 });
    const holder = await one.take('pve1', 'clone', 10_000);
    const cancel = new AbortController();
    const waiting = track(one.take('pve1', 'agentInterfaces', 10_000, cancel.signal));
    const behind = track(one.take('pve1', 'start', 10_000));
    await pause(100);
    const reason = new Error('job cancelled');
    cancel.abort(reason);
    await pause(0);
    expect(waiting.state).to.equal('refused');
    expect(waiting.reason).to.equal(reason);
    expect(behind.state).to.equal('pending');
    holder.answered();
    await until(() => behind.state === 'granted', 'the call behind');
    behind.slot?.answered();
  });

  it('measures waits per node and counts the slots a process holds', async () => {
    const metrics = createMetrics();
    const one = slots({ slotsPerNode: 1, metrics });
    const first = await one.take('pve1', 'clone', 10_000);
    const second = track(one.take('pve1', 'start', 10_000));
    await pause(100);
    expect((await metrics.daemonSlotsHeld.get()).values.find((v) => v.labels.node === 'pve1')?.value).to.equal(1);
    first.answered();
    await until(() => second.state === 'granted', 'the second call');
    second.slot?.answered();
    expect((await metrics.daemonSlotWaits.get()).values.find((v) => v.labels.node === 'pve1')?.value).to.equal(1);
    const held = async (): Promise<number | undefined> => (await metrics.daemonSlotsHeld.get()).values.find((v) => v.labels.node === 'pve1')?.value;
    for (let i = 0; i < 100 && (await held()) !== 0; i += 1) await pause(10);
    expect(await held()).to.equal(0);
  });

  it('with Redis unreachable, lets calls go but never more than slotsPerNode per node in this process', async () => {
    const metrics = createMetrics();
    // A port nothing listens on: every command fails fast.
    const down = new Redis('redis://127.0.0.1:1', { commandTimeout: 200, maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
    down.on('error', () => undefined);
    const one = slots({ redis: down, metrics });
    let inFlight = 0;
    let peak = 0;
    const call = async (node: string): Promise<void> => {
      const slot = await one.take(node, 'agentInterfaces', 10_000);
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await pause(30);
      inFlight -= 1;
      slot.answered();
    };
    await Promise.all(Array.from({ length: 6 }, () => call('pve1')));
    expect(peak).to.equal(2);
    expect((await metrics.daemonSlotUnavailableTotal.get()).values[0]?.value).to.equal(6);
  });
});
