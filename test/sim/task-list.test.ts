// GET /nodes/{node}/tasks with since and until (SPEC 26): the window is
// applied before `start` and `total` count, as Tasks.pm's filter order has
// it, whatever else the run left in the task book.
import { expect } from 'chai';
import { startTestSim, type TestSim } from './sim-helpers.js';

const startOf = (upid: string): number => parseInt(upid.split(':')[4] ?? '', 16);

describe('simulator: the task listing window', () => {
  let sim: TestSim;
  const upids: string[] = [];
  before(async () => {
    sim = await startTestSim();
    for (let i = 0; i < 3; i += 1) {
      upids.push(await sim.data<string>('POST', '/nodes/pv1-1/qemu/9001/status/stop'));
      sim.clock.advance(10);
    }
  });
  after(async () => sim.close());

  const list = (params: Record<string, number>): Promise<{ upid: string }[]> => {
    const query = Object.entries({ limit: 100, ...params }).map(([k, v]) => `&${k}=${v}`).join('');
    return sim.data('GET', `/nodes/pv1-1/tasks?source=all${query}`);
  };

  it('since and until keep the tasks started within them, the bounds included', async () => {
    const middle = startOf(upids[1] ?? '');
    expect((await list({ since: middle, until: middle })).map((e) => e.upid)).to.deep.equal([upids[1]]);
    expect((await list({ since: middle })).map((e) => e.upid)).to.deep.equal([upids[2], upids[1]]);
    expect((await list({ until: middle })).map((e) => e.upid)).to.deep.equal([upids[1], upids[0]]);
  });

  it('start skips only tasks within the window', async () => {
    expect((await list({ since: startOf(upids[1] ?? ''), start: 1 })).map((e) => e.upid)).to.deep.equal([upids[1]]);
  });
});
