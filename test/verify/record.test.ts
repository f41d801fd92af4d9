// `verify --record DIR` (SPEC 33): the recorder writes every exchange as a
// fixture file in the project's format, in order, and an index of the run;
// never a token, a secret or user-data.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Exchange } from '../../src/proxmox/exchange.js';
import { openRecorder } from '../../src/verify/record/recorder.js';
import { RECORDING_FORMAT, type RecordingIndex } from '../../src/verify/record/recording-index.js';
import type { HostInventory } from '../../src/verify/types.js';
import { recordSimRun, type SimRunSecrets } from '../support/replay/record-sim-run.js';

interface FixtureFile {
  status: number;
  reason: string;
  headers: Record<string, string>;
  body: string;
}

const EMPTY_INVENTORY: HostInventory = { nodes: [{ node: 'pve1', status: 'online' }], storages: [], templates: [], bridges: [] };

function exchange(overrides: Partial<Exchange>): Exchange {
  return { method: 'GET', path: '/version', status: 200, reason: 'OK', headers: {}, body: '{"data":null}', startedAt: Date.now(), ms: 3, ...overrides };
}

describe('the recorder (verify --record, SPEC 33)', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'record-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  describe("around the provider's create and delete against the simulator", () => {
    let recording: string;
    let secrets: SimRunSecrets;
    let index: RecordingIndex;
    before(async () => {
      recording = mkdtempSync(join(tmpdir(), 'record-run-'));
      secrets = await recordSimRun(join(recording, 'run'));
      index = JSON.parse(readFileSync(join(recording, 'run', 'index.json'), 'utf8')) as RecordingIndex;
    });
    after(() => rmSync(recording, { recursive: true, force: true }));
    const read = (file: string): FixtureFile => JSON.parse(readFileSync(join(recording, 'run', file), 'utf8')) as FixtureFile;

    it('writes one numbered file per exchange, in order, named by method and path, each in the index', () => {
      const files = readdirSync(join(recording, 'run')).filter((f) => f !== 'index.json').sort();
      expect(files).to.deep.equal(index.exchanges.map((e) => e.file));
      index.exchanges.forEach((e, i) => {
        expect(e.file).to.match(new RegExp(`^${String(i + 1).padStart(4, '0')}-${e.method.toLowerCase()}-[a-z0-9-]+\\.json$`));
      });
      expect(index.exchanges[0]).to.include({ file: '0001-get-version.json', method: 'GET', path: '/version', step: 'inventory' });
      const starts = index.exchanges.map((e) => e.startMs);
      expect(starts).to.deep.equal([...starts].sort((a, b) => a - b));
    });

    it("each file is a fixture: status, reason, headers, the exact body, Content-Length its byte length", () => {
      for (const e of index.exchanges) {
        const fixture = read(e.file);
        expect(Object.keys(fixture), e.file).to.deep.equal(['status', 'reason', 'headers', 'body']);
        expect(fixture.headers['Content-Length'], e.file).to.equal(String(Buffer.byteLength(fixture.body)));
        expect(fixture.headers['Content-Type'], e.file).to.match(/^application\/json/);
      }
      expect(JSON.parse(read('0001-get-version.json').body)).to.have.nested.property('data.version');
    });

    it('the index: its format, when, the inventory, the steps and every exchange with its parameters, step and times', () => {
      expect(index.format).to.equal(RECORDING_FORMAT);
      expect(Date.parse(index.recordedAt)).to.be.a('number').and.not.NaN;
      expect(index.inventory.nodes).to.deep.equal([{ node: 'pv1-1', status: 'online' }]);
      expect(index.inventory.templates.map((t) => t.vmid)).to.deep.equal([9001]);
      expect(index.steps.map((s) => [s.name, s.node])).to.deep.equal([['inventory', 'pv1-1'], ['create', 'pv1-1'], ['delete', 'pv1-1']]);
      const clone = index.exchanges.find((e) => e.path.endsWith('/clone'));
      expect(clone).to.include({ method: 'POST', step: 'create', node: 'pv1-1' });
      expect(clone?.form).to.have.property('newid');
      const upload = index.exchanges.find((e) => e.upload !== undefined);
      expect(upload?.upload).to.have.keys('filename', 'size');
      expect(upload?.upload?.size).to.be.above(0);
      for (const e of index.exchanges) expect(e.ms).to.be.a('number').and.at.least(0);
    });

    it("holds neither the token's secret nor the user-data, anywhere", () => {
      for (const file of readdirSync(join(recording, 'run'))) {
        const text = readFileSync(join(recording, 'run', file), 'utf8');
        expect(text, file).not.to.include(secrets.tokenSecret);
        expect(text, file).not.to.include(secrets.userData.split('\n')[1] ?? secrets.userData);
        expect(text.toLowerCase(), file).not.to.match(/pveapitoken|authorization/);
      }
    });
  });

  it('refuses a directory that holds anything, naming it; creates a missing one', async () => {
    writeFileSync(join(dir, 'left-over.json'), '{}');
    const refused = await openRecorder(dir).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).to.be.instanceOf(Error);
    expect((refused as Error).message).to.include(dir).and.include('not empty');
    const fresh = join(dir, 'new', 'deeper');
    const recorder = await openRecorder(fresh);
    await recorder.finish(EMPTY_INVENTORY, []);
    expect(readdirSync(fresh)).to.deep.equal(['index.json']);
  });

  it('keeps an exchange with no answer (status 0) with its reason, and drops credential headers of an answer', async () => {
    const out = join(dir, 'rec');
    mkdirSync(out);
    const recorder = await openRecorder(out);
    recorder.step('api');
    recorder.onExchange(exchange({ headers: { 'set-cookie': 'PVEAuthCookie=secret', 'content-type': 'application/json;charset=UTF-8', 'content-length': '999', 'content-encoding': 'gzip' } }));
    recorder.onExchange(exchange({ method: 'POST', path: '/nodes/pve1/qemu/9001/clone', form: { newid: 100 }, status: 0, reason: 'socket hang up', body: '' }));
    await recorder.finish(EMPTY_INVENTORY, [{ name: 'api', ms: 5 }]);
    const first = JSON.parse(readFileSync(join(out, '0001-get-version.json'), 'utf8')) as FixtureFile;
    expect(first.headers).to.deep.equal({ 'Content-Type': 'application/json;charset=UTF-8', 'Content-Length': '13' });
    const second = JSON.parse(readFileSync(join(out, '0002-post-nodes-pve1-qemu-9001-clone.json'), 'utf8')) as FixtureFile;
    expect(second).to.deep.equal({ status: 0, reason: 'socket hang up', headers: {}, body: '' });
    const index = JSON.parse(readFileSync(join(out, 'index.json'), 'utf8')) as RecordingIndex;
    expect(index.exchanges[1]).to.include({ method: 'POST', step: 'api' }).and.have.deep.property('form', { newid: 100 });
  });
});
