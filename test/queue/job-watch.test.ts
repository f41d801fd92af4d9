// SPEC 24: the waits on one job share one read of it per interval; a
// listener that fails ends nothing else, and a job nobody listens to is
// read no more.
import { expect } from 'chai';
import type { JobView } from '../../src/queue/job-view.js';
import { JobWatch, type JobRead } from '../../src/queue/job-watch.js';
import { eventually } from '../support/redis.js';

const view = (id: string): JobView => ({ id, job: 'check', data: { name: 'vm-1' }, state: 'active', progress: 0, attemptsMade: 0, logs: [], createdAt: new Date(0).toISOString() });

describe('JobWatch: one read per job per interval (SPEC 24)', function () {
  this.timeout(30_000);

  it('a listener that throws does not stop the others hearing the reads, and the reads stop once nobody listens', async () => {
    let reads = 0;
    const watch = new JobWatch((id) => {
      reads += 1;
      return Promise.resolve(view(id));
    }, 10);
    const heard: JobRead[] = [];
    const stopThrowing = watch.watch('job-1', () => {
      throw new Error('a listener that fails');
    });
    const stopHearing = watch.watch('job-1', (read) => heard.push(read));
    expect(watch.watched).to.equal(1);

    await eventually(() => Promise.resolve(heard.length >= 3 ? true : undefined));
    expect(heard[2]).to.deep.equal({ view: view('job-1') });

    stopThrowing();
    stopHearing();
    // The job's loop ends at its next turn: no timer left, no more reads.
    await eventually(() => Promise.resolve(watch.watched === 0 ? true : undefined));
    const after = reads;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reads).to.equal(after);
  });
});
