// How pveproxy reads parameters and writes answers, and the task log's
// paging (SPEC 23, audit 8, 9, 12b): what a client that sends anything
// else than our own would meet on a real host.
import { request } from 'node:http';
import { expect } from 'chai';
import { AUTH, startTestSim, type TestSim } from './sim-helpers.js';

const Q = '/nodes/pv1-1/qemu';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function raw(sim: TestSim, method: string, path: string, body?: string, headers: Record<string, string> = AUTH): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${sim.url}/api2/json${path}`);
    const req = request(url, { method, headers: body === undefined ? headers : { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('simulator: parameters and answers as pveproxy handles them (audit 8, 9, 12b)', () => {
  let sim: TestSim;
  beforeEach(async () => {
    sim = await startTestSim();
  });
  afterEach(async () => {
    await sim.close();
  });

  const errorsOf = (answer: { body: string }): unknown => (JSON.parse(answer.body) as { errors?: unknown }).errors;

  it('takes only 0 and 1 for a boolean', async () => {
    const answer = await sim.api('POST', `${Q}/9001/clone`, { newid: 199999, name: 'x', full: 'true' });
    expect(answer.status).to.equal(400);
    expect(errorsOf(answer)).to.deep.equal({ full: "type check ('boolean') failed - got 'true'" });
  });

  it('splits a form body on ; as well as &, and lets the query override the body', async () => {
    expect((await raw(sim, 'PUT', `${Q}/9001/config`, 'cores=3;memory=1024')).status).to.equal(200);
    expect(await sim.data('GET', `${Q}/9001/config`)).to.include({ cores: 3, memory: '1024' });
    expect((await raw(sim, 'PUT', `${Q}/9001/config?cores=6`, 'cores=5')).status).to.equal(200);
    expect(await sim.data('GET', `${Q}/9001/config`)).to.include({ cores: 6 });
  });

  it("words a missing 'requires' property as JSONSchema does", async () => {
    const answer = await sim.api('PUT', `${Q}/9001/config`, { force: 1 });
    expect(errorsOf(answer)).to.deep.equal({ delete: "missing property required by 'force'" });
  });

  it('closes the connection after an error, and sends no Content-Length with an empty body', async () => {
    const missing = await raw(sim, 'GET', `${Q}/999999/config`);
    expect([missing.status, missing.headers.connection]).to.deep.equal([500, 'close']);
    const unauthorized = await raw(sim, 'GET', '/version', undefined, {});
    expect([unauthorized.status, unauthorized.headers.connection, unauthorized.headers['content-length'], unauthorized.body]).to.deep.equal([401, 'close', undefined, '']);
    const ok = await raw(sim, 'GET', '/version');
    expect([ok.status, ok.headers.connection]).to.deep.equal([200, 'Keep-Alive']);
  });

  it('refuses skiplock for an API token: Only root may use this option', async () => {
    const answer = await sim.api('POST', `${Q}/9001/status/stop`, { skiplock: 1 });
    expect(errorsOf(answer)).to.deep.equal({ skiplock: 'Only root may use this option.' });
  });

  it('pages a task log as dump_logfile does: limit=0 is every line, total beside the data', async () => {
    const upid = await sim.data<string>('POST', `${Q}/9001/clone`, { newid: 199999, name: 'x', full: 1 });
    sim.clock.advance(2);
    const log = (params: Record<string, number>) => sim.api('GET', `/nodes/pv1-1/tasks/${encodeURIComponent(upid)}/log`, params);
    const all = JSON.parse((await log({ limit: 0 })).body) as { data: { n: number; t: string }[]; total: number };
    expect(all.data.map((l) => l.n)).to.deep.equal([1, 2, 3, 4]);
    expect(all.data.at(-1)?.t).to.equal('TASK OK');
    expect(all.total).to.equal(4);
    const page = JSON.parse((await log({ start: 1, limit: 2 })).body) as { data: { n: number }[]; total: number };
    expect([page.data.map((l) => l.n), page.total]).to.deep.equal([[2, 3], 4]);
  });

  it('answers an empty log with one no content line', async () => {
    const upid = await sim.data<string>('POST', `${Q}/9001/status/stop`);
    const answer = JSON.parse((await sim.api('GET', `/nodes/pv1-1/tasks/${encodeURIComponent(upid)}/log`)).body) as unknown;
    expect(answer).to.deep.equal({ total: 1, data: [{ n: 1, t: 'no content' }] });
  });

  it('parses a UPID with a 9-digit pstart (PVE::UPID::decode)', async () => {
    const upid = 'UPID:pv1-1:000A1B2C:1000C9F3A:6AAD46B3:qmstart:100:root@pam!provisioner:';
    const answer = await sim.api('GET', `/nodes/pv1-1/tasks/${encodeURIComponent(upid)}/status`);
    expect(errorsOf(answer)).to.deep.equal({ upid: 'no such task' });
  });
});
