// SPEC 27: the events a stream sends from where the client is to the job
// as read now, and the state a read must see twice before it is sent.
import { expect } from 'chai';
import type { JobViewOf } from '../../src/queue/job-view.js';
import { STREAM_START, eventsSince, parseCursor, settledState, formatCursor } from '../../src/web/job-event-cursor.js';

const view = (fields: Partial<JobViewOf<'create'>>): JobViewOf<'create'> => ({
  id: 'create-a-1',
  job: 'create',
  data: { name: 'a', uid: 'u-a', image: 'default', cores: 2, memoryMiB: 2048, diskGiB: 10, waitForAddress: true, generation: 1 },
  state: 'active',
  progress: 0,
  attemptsMade: 0,
  logs: [],
  createdAt: '2026-12-01T00:00:00.000Z',
  ...fields,
});

describe('job event cursor (SPEC 27)', () => {
  it('sends the state, then a step line as a step and a log event, each id naming the place after it', () => {
    const { events, cursor } = eventsSince(STREAM_START, view({ logs: ['cloned to VMID 100', 'step: cloned'] }));
    expect(events).to.deep.equal([
      { event: 'state', id: '0.active.0', data: { state: 'active', attemptsMade: 0 } },
      { event: 'log', id: '1.active.0', data: { index: 0, line: 'cloned to VMID 100' } },
      { event: 'step', id: '1s.active.0', data: { index: 1, step: 'cloned' } },
      { event: 'log', id: '2.active.0', data: { index: 1, line: 'step: cloned' } },
    ]);
    expect(formatCursor(cursor)).to.equal('2.active.0');
    for (const event of events) expect(formatCursor(parseCursor(event.id ?? '') ?? STREAM_START)).to.equal(event.id);
  });

  it('does not send a state read once with the next attempt (the job finished or was retried between two reads), and sends it read twice', () => {
    const cursor = parseCursor('3.active.0') ?? STREAM_START;
    const torn = view({ state: 'active', attemptsMade: 1 });
    const first = settledState('active.0', torn);
    expect(first.settled).to.equal(false);
    expect(eventsSince(cursor, torn, first.settled).events).to.deep.equal([]);
    const again = settledState(first.seen, torn);
    expect(again.settled).to.equal(true);
    expect(eventsSince(cursor, torn, again.settled).events.map((e) => e.data)).to.deep.equal([{ state: 'active', attemptsMade: 1 }]);
    expect(settledState(undefined, view({ state: 'completed', attemptsMade: 1 })).settled, 'an end needs no second read').to.equal(true);
  });

  it('sends a step event only for a line naming one of a create\'s steps', () => {
    const { events } = eventsSince(parseCursor('0.active.0') ?? STREAM_START, view({ logs: ['step: rebooted', 'step: seeded'] }));
    expect(events.map((e) => e.event)).to.deep.equal(['log', 'step', 'log']);
    expect(events[1]?.data).to.deep.equal({ index: 1, step: 'seeded' });
  });

  it('refuses an id it never sends', () => {
    for (const text of ['', 'seven', '3', '3.active', '3x.active.0', '-1.active.0', '3.Active.0', '3.active.0.1']) expect(parseCursor(text), text).to.equal(undefined);
  });
});
