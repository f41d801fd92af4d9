// SPEC 27 against the running service: `all` in-process on the simulator
// (startAll, real sockets, its own Redis prefix), GET /v1/jobs/:id/events
// read over HTTP as an EventSource reads it. A create streams its states,
// its steps in order, every log line and an end with the address, and the
// server closes; a failed create ends with its reason; a finished job is
// replayed and closed; Last-Event-ID at any event resumes right after it.
import { expect } from 'chai';
import type { RunningAll } from '../../src/cli/all.js';
import { parseSamples, valueOf } from '../support/prometheus-scrape.js';
import { startServiceOnSim, type ServiceOnSim } from '../support/service-on-sim.js';
import { readEventStream, type EventStreamRead, type ReadEvent } from '../support/sse-client.js';

const CREATE_STEPS = ['cloned', 'seeded', 'configured', 'resized', 'started', 'running', 'address'];
const USER_DATA_MARK = 'events-must-not-show-this-user-data-line';

interface JobAnswer {
  state: string;
  logs: string[];
  result?: { address?: string };
}

const named = (read: EventStreamRead, event: string): ReadEvent[] => read.events.filter((e) => e.event === event);
const stepsOf = (read: EventStreamRead): unknown[] => named(read, 'step').map((e) => (e.data as { step: string }).step);
const linesOf = (read: EventStreamRead): unknown[] => named(read, 'log').map((e) => (e.data as { line: string }).line);
const lastOf = (read: EventStreamRead): ReadEvent | undefined => read.events[read.events.length - 1];

describe('job events as server-sent events on the running service (SPEC 27)', function () {
  this.timeout(120_000);
  let service: ServiceOnSim;
  let running: RunningAll;
  let headers: Record<string, string>;
  let createdJobId: string;
  let live: EventStreamRead;

  const url = (path: string): string => `${running.web.url}${path}`;
  const events = (jobId: string, extra: Record<string, string> = {}): Promise<EventStreamRead> =>
    readEventStream(url(`/v1/jobs/${jobId}/events`), { headers: { authorization: headers.authorization ?? '', ...extra } });
  const create = async (body: Record<string, unknown>): Promise<string> => {
    const res = await fetch(url('/v1/vms'), { method: 'POST', headers, body: JSON.stringify(body) });
    expect(res.status, await res.clone().text()).to.equal(202);
    return ((await res.json()) as { jobId: string }).jobId;
  };
  const jobOf = async (jobId: string): Promise<JobAnswer> => (await (await fetch(url(`/v1/jobs/${jobId}`), { headers })).json()) as JobAnswer;
  const simFaults = (faults: Record<string, unknown>): Promise<void> => service.simFaults(faults);

  before(async () => {
    service = await startServiceOnSim('events-e2e');
    ({ running, headers } = service);
    // Read from the moment it is enqueued, so the stream sees it live.
    createdJobId = await create({ name: 'events-e2e', userData: `#cloud-config\nruncmd:\n  - echo ${USER_DATA_MARK}\n` });
    live = await events(createdJobId);
  });

  after(async () => {
    await service?.close();
  });

  it("streams a create's states, its steps in order, every log line and an end with the address, then the server closes", async () => {
    expect(live.status, live.text).to.equal(200);
    expect(live.headers.get('content-type')).to.match(/^text\/event-stream/);
    expect(live.headers.get('cache-control')).to.equal('no-cache');
    expect(live.headers.get('x-accel-buffering')).to.equal('no');
    expect(live.serverClosed, 'the server ends the stream at the end').to.equal(true);
    expect(live.events[0]?.event, live.text).to.equal('state');
    expect(['waiting', 'active']).to.include((live.events[0]?.data as { state: string }).state);
    expect(named(live, 'state').map((e) => (e.data as { state: string }).state)).to.include('active');
    expect(stepsOf(live)).to.deep.equal(CREATE_STEPS);
    const job = await jobOf(createdJobId);
    expect(job.state).to.equal('completed');
    expect(linesOf(live), 'every log line GET /v1/jobs/:id shows, in order').to.deep.equal(job.logs);
    expect(job.logs.length).to.be.greaterThan(CREATE_STEPS.length);
    const end = lastOf(live);
    expect(end?.event).to.equal('end');
    expect(end?.data).to.deep.include({ state: 'completed' });
    expect((end?.data as { result: { address?: string } }).result.address).to.equal(job.result?.address).and.to.match(/^\d+\.\d+\.\d+\.\d+$/);
    const ids = live.events.map((e) => e.id);
    expect(new Set(ids).size, 'every event has an id of its own').to.equal(live.events.length);
    expect(live.text).not.to.contain(USER_DATA_MARK);
  });

  it('replays a finished job (its log lines, then the end) and closes at once', async () => {
    const replay = await events(createdJobId);
    expect(replay.status).to.equal(200);
    expect(replay.serverClosed).to.equal(true);
    expect(named(replay, 'state'), 'a finished job has no state but its end').to.deep.equal([]);
    expect(stepsOf(replay)).to.deep.equal(CREATE_STEPS);
    expect(linesOf(replay)).to.deep.equal(linesOf(live));
    expect(replay.events.filter((e) => e.event !== 'end' && e.event !== 'log' && e.event !== 'step')).to.deep.equal([]);
    expect(lastOf(replay)?.data).to.deep.equal(lastOf(live)?.data);
    expect(replay.comments, 'no heartbeat: nothing was waited for').to.deep.equal([]);
  });

  it('resumes after any event given as Last-Event-ID with none repeated and none missing, and answers 204 after the end', async () => {
    const replay = await events(createdJobId);
    const full = replay.events;
    expect(full.length).to.be.greaterThan(10);
    for (let i = 0; i < full.length - 1; i += 1) {
      const resumed = await events(createdJobId, { 'last-event-id': full[i]?.id ?? '' });
      expect(resumed.events, `after event ${i} (${full[i]?.id ?? ''})`).to.deep.equal(full.slice(i + 1));
    }
    const afterEnd = await events(createdJobId, { 'last-event-id': lastOf(replay)?.id ?? '' });
    expect(afterEnd.status, 'an EventSource stops reconnecting on 204').to.equal(204);
    expect(afterEnd.events).to.deep.equal([]);
  });

  it('resumes a live stream cut off mid-way: the two parts are the whole, each event once', async () => {
    const jobId = await create({ name: 'events-resume' });
    const firstPart = await readEventStream(url(`/v1/jobs/${jobId}/events`), {
      headers: { authorization: headers.authorization ?? '' },
      stopWhen: (seen) => seen.filter((e) => e.event === 'step').length >= 3,
    });
    expect(firstPart.serverClosed, 'the client cut it').to.equal(false);
    const rest = await events(jobId, { 'last-event-id': lastOf(firstPart)?.id ?? '' });
    expect(rest.serverClosed).to.equal(true);
    const whole = [...firstPart.events, ...rest.events];
    const ids = whole.map((e) => e.id);
    expect(new Set(ids).size, 'no event twice').to.equal(whole.length);
    const job = await jobOf(jobId);
    expect(whole.filter((e) => e.event === 'log').map((e) => (e.data as { line: string }).line)).to.deep.equal(job.logs);
    expect(whole.filter((e) => e.event === 'step').map((e) => (e.data as { step: string }).step)).to.deep.equal(CREATE_STEPS);
    expect(whole[whole.length - 1]?.data).to.deep.include({ state: 'completed' });
  });

  it("ends a failing create's stream with failed and the reason", async () => {
    // A resize refused for a missing privilege is Permanent: failed on the first attempt.
    await simFaults({ denyAllocateSpace: ['local-lvm'] });
    try {
      const jobId = await create({ name: 'events-denied', node: 'pve1', diskGiB: 20 });
      const read = await events(jobId);
      expect(read.serverClosed).to.equal(true);
      const end = lastOf(read);
      expect(end?.event, read.text).to.equal('end');
      expect(end?.data).to.deep.include({ state: 'failed' });
      expect((end?.data as { failedReason: string }).failedReason).to.contain('Datastore.AllocateSpace');
      expect(stepsOf(read), 'the clone was refused').to.deep.equal([]);
      expect(linesOf(read)).to.deep.equal((await jobOf(jobId)).logs);
    } finally {
      await simFaults({});
    }
  });

  it('answers an unknown job with 404 JSON, no token with 401, a bad Last-Event-ID with 400 naming it', async () => {
    const unknown = await fetch(url('/v1/jobs/no-such-job/events'), { headers });
    expect(unknown.status).to.equal(404);
    expect(await unknown.json()).to.deep.equal({ error: 'NotFound', message: 'no job no-such-job' });
    const anonymous = await fetch(url(`/v1/jobs/${createdJobId}/events`));
    expect(anonymous.status).to.equal(401);
    expect(((await anonymous.json()) as { error: string }).error).to.equal('Unauthorized');
    const bad = await fetch(url(`/v1/jobs/${createdJobId}/events`), { headers: { ...headers, 'last-event-id': 'seven' } });
    expect(bad.status).to.equal(400);
    expect(((await bad.json()) as { fields: { field: string }[] }).fields.map((f) => f.field)).to.deep.equal(['Last-Event-ID']);
  });

  it('is documented as streamJobEvents answering text/event-stream, its ids matching the Last-Event-ID pattern given', async () => {
    const document = (await (await fetch(url('/v1/openapi.json'), { headers })).json()) as {
      paths: Record<string, { get?: { operationId?: string; parameters?: { name: string; schema: { pattern: string } }[]; responses: Record<string, { content?: object }> } }>;
    };
    const operation = document.paths['/jobs/{id}/events']?.get;
    expect(operation?.operationId).to.equal('streamJobEvents');
    expect(Object.keys(operation?.responses['200']?.content ?? {})).to.deep.equal(['text/event-stream']);
    const pattern = new RegExp(operation?.parameters?.find((p) => p.name === 'Last-Event-ID')?.schema.pattern ?? '^$');
    for (const event of live.events) expect(event.id, event.event).to.match(pattern);
  });

  it('times each stream that ended in the route histogram, by its template', async () => {
    const samples = parseSamples(await (await fetch(url('/metrics'), { headers })).text());
    const count = valueOf(samples, 'pvep_http_request_duration_seconds_count', { route: '/v1/jobs/:id/events', method: 'GET', status: '200' });
    expect(count).to.be.greaterThan(0);
  });
});
