// A replay names every difference (SPEC 33): a recording edited to carry a
// different status, or a renamed key, fails naming the request and the
// difference; polls collapse; UPIDs the replay got stand in for the
// recorded ones; a bad index is refused naming the field.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { IndexedExchange, RecordingIndex } from '../../src/verify/record/recording-index.js';
import { FIXTURES_DIR } from '../support/fixtures.js';
import { compareAnswers, type CompareContext } from '../support/replay/compare.js';
import { RecordingError, loadRecording } from '../support/replay/load-recording.js';
import { differenceLines, pollRuns, replayRecording } from '../support/replay/replay.js';
import { withoutTasksBeforeSince } from '../support/replay/task-listing.js';

const SIM_CREATE = join(FIXTURES_DIR, 'recordings', 'sim-create');

interface FixtureFile {
  status: number;
  reason: string;
  headers: Record<string, string>;
  body: string;
}

function editFixture(dir: string, file: string, edit: (f: FixtureFile) => void): void {
  const path = join(dir, file);
  const fixture = JSON.parse(readFileSync(path, 'utf8')) as FixtureFile;
  edit(fixture);
  fixture.headers['Content-Length'] = String(Buffer.byteLength(fixture.body));
  writeFileSync(path, JSON.stringify(fixture, null, 2));
}

const ctx = (): CompareContext => ({ upids: new Map(), knownIds: new Set(['pve1', '100']) });
const answer = (data: unknown, status = 200) => ({ status, reason: status === 200 ? 'OK' : 'x', body: JSON.stringify({ data }) });

describe('a replay names each difference (SPEC 33)', function () {
  this.timeout(60_000);
  let dir: string;
  let index: RecordingIndex;
  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'replay-edit-')), 'rec');
    cpSync(SIM_CREATE, dir, { recursive: true });
    index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as RecordingIndex;
  });
  afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));
  const numbered = (pick: (e: IndexedExchange) => boolean): { e: IndexedExchange; n: number } => {
    const n = index.exchanges.findIndex(pick);
    return { e: index.exchanges[n] as IndexedExchange, n: n + 1 };
  };

  it('a different status fails, naming the request and the status', async () => {
    const { e, n } = numbered((x) => x.method === 'PUT' && x.path.endsWith('/config'));
    editFixture(dir, e.file, (f) => {
      f.status = 500;
      f.reason = 'VM is locked (clone)';
    });
    const lines = differenceLines(await replayRecording(loadRecording(dir), { pollDeadlineMs: 1_000 }));
    expect(lines).to.include(`#${n} PUT ${e.path}: status: recorded 500, replayed 200`);
    expect(lines).to.include(`#${n} PUT ${e.path}: reason: recorded "VM is locked (clone)", replayed "OK"`);
  });

  it('a renamed key fails, naming the request and the key', async () => {
    const { e, n } = numbered((x) => x.method === 'GET' && x.path.endsWith('/status/current'));
    editFixture(dir, e.file, (f) => {
      f.body = f.body.replace('"qmpstatus":', '"qmpstate":');
    });
    const lines = differenceLines(await replayRecording(loadRecording(dir), { pollDeadlineMs: 1_000 }));
    expect(lines).to.include(`#${n} GET ${e.path}: body.data: key "qmpstate" missing`);
    expect(lines).to.include(`#${n} GET ${e.path}: body.data: key "qmpstatus" not recorded`);
  });

  it('a run of identical GETs is one poll; a different request or a set-up breaks the run', () => {
    const get = (path: string, extra: Partial<IndexedExchange> = {}): IndexedExchange => ({ file: 'f', method: 'GET', path, startMs: 0, ms: 1, ...extra });
    const runs = pollRuns([get('/a'), get('/a'), get('/a'), get('/b'), get('/a'), get('/a', { setup: [] }), get('/a', { query: { x: 1 } }), { ...get('/c'), method: 'POST' }, { ...get('/c'), method: 'POST' }]);
    expect(runs).to.deep.equal([[0, 1, 2], [3], [4], [5], [6], [7], [8]]);
    const sim = pollRuns(index.exchanges);
    expect(sim.length).to.be.below(index.exchanges.length);
  });

  it('values: ids, times and addresses are masked, other values and types must agree', () => {
    const recorded = answer({ upid: 'UPID:pve1:000A1B2C:0013C9F3:6B1019C7:qmclone:9001:root@pam!provisioner:', uptime: 5, net0: 'virtio=BC:24:11:EE:48:83,bridge=vmbr0', status: 'running', cores: 2 });
    const same = answer({ upid: 'UPID:pve1:000B0000:0013D000:6B1019FF:qmclone:9001:root@pam!provisioner:', uptime: 900, net0: 'virtio=BC:24:11:00:00:01,bridge=vmbr0', status: 'running', cores: 2 });
    expect(compareAnswers(recorded, same, ctx())).to.deep.equal([]);
    const other = answer({ upid: 'UPID:pve1:000B0000:0013D000:6B1019FF:qmclone:9001:root@pam!provisioner:', uptime: '5', net0: 'virtio=BC:24:11:00:00:01,bridge=vmbr1', status: 'paused', cores: 2 });
    expect(compareAnswers(recorded, other, ctx())).to.deep.equal([
      'body.data.uptime: recorded number, replayed string',
      'body.data.net0: recorded "virtio=BC:24:11:EE:48:83,bridge=vmbr0", replayed "virtio=BC:24:11:00:00:01,bridge=vmbr1"',
      'body.data.status: recorded "running", replayed "paused"',
    ]);
    // A UPID is masked in its pid, times and id only: a task of another type, on another node, or by another user is a difference.
    for (const changed of ['UPID:pve1:000B0000:0013D000:6B1019FF:qmstart:9001:root@pam!provisioner:', 'UPID:pve2:000B0000:0013D000:6B1019FF:qmclone:9001:root@pam!provisioner:', 'UPID:pve1:000B0000:0013D000:6B1019FF:qmclone:9001:root@pam!other:']) {
      expect(compareAnswers(answer({ upid: 'UPID:pve1:000A1B2C:0013C9F3:6B1019C7:qmclone:9001:root@pam!provisioner:' }), answer({ upid: changed }), ctx()), changed).to.have.length(1);
    }
  });

  it("a certificate's fingerprint is an id: masked whole, where a MAC mask would leave its last two bytes (a node's ssl_fingerprint)", () => {
    const fingerprint = (last: string): string => `${'3A:9F:1C:47:B2:08:'.repeat(5)}${last}`;
    expect(fingerprint('85:7C').split(':')).to.have.length(32);
    expect(compareAnswers(answer({ ssl_fingerprint: fingerprint('85:7C') }), answer({ ssl_fingerprint: fingerprint('01:02') }), ctx())).to.deep.equal([]);
  });

  it("lists are matched on their entries' ids: a foreign VM the replay lacks is no difference, one of the run's is", () => {
    const recorded = answer([{ id: 'qemu/100', vmid: 100 }, { id: 'qemu/555', vmid: 555 }]);
    expect(compareAnswers(recorded, answer([{ id: 'qemu/100', vmid: 100 }]), ctx())).to.deep.equal([]);
    expect(compareAnswers(recorded, answer([{ id: 'qemu/555', vmid: 555 }]), ctx())).to.deep.equal(['body.data: entry id=qemu/100 missing']);
    // A list without ids (a task log's lines) is compared in order, its length too.
    const log = answer([{ n: 1, t: 'starting' }, { n: 2, t: 'TASK OK' }]);
    expect(compareAnswers(log, answer([{ n: 1, t: 'starting' }]), ctx())).to.deep.equal(['body.data: recorded 2 entries, replayed 1']);
  });

  it("a task listing: a task of the run the host's `since` left out is dropped from the replayed one; a task it listed must be there", () => {
    const upid = (start: number, type: string, id: string): string => `UPID:pve1:000A1B2C:0013C9F3:${start.toString(16).toUpperCase()}:${type}:${id}:root@pam!provisioner:`;
    const task = (u: string): Record<string, unknown> => ({ upid: u, type: u.split(':')[5], id: u.split(':')[6], status: 'OK' });
    // On the host the probe's delete started a second before the clone; here both in the same second.
    const [hostProbe, hostClone] = [upid(1_796_218_160, 'imgdel', 'proxy-seeds'), upid(1_796_218_161, 'qmclone', '9001')];
    const [probe, clone] = [upid(1_796_218_300, 'imgdel', 'proxy-seeds'), upid(1_796_218_300, 'qmclone', '9001')];
    const context: CompareContext = { upids: new Map([[hostProbe, probe], [hostClone, clone]]), knownIds: new Set(['pve1', '9001', 'proxy-seeds']) };
    const query = { since: 1_796_218_161 };
    const recorded = { status: 200, reason: 'OK', body: JSON.stringify({ total: 1, data: [task(hostClone)] }) };
    const replayed = { status: 200, reason: 'OK', body: JSON.stringify({ total: 2, data: [task(clone), task(probe)] }) };
    expect(compareAnswers(recorded, replayed, context), 'unfiltered').to.deep.equal(['body.data: entry id=proxy-seeds not recorded']);
    expect(compareAnswers(recorded, withoutTasksBeforeSince(replayed, query, context.upids), context)).to.deep.equal([]);
    const cloneMissing = { status: 200, reason: 'OK', body: JSON.stringify({ total: 1, data: [task(probe)] }) };
    expect(compareAnswers(recorded, withoutTasksBeforeSince(cloneMissing, query, context.upids), context)).to.deep.equal(['body.data: entry id=9001 missing']);
  });

  it('an entry whose id is empty is foreign, not one of the run', () => {
    const recorded = answer([{ id: 'qemu/100', vmid: 100 }]);
    const withEmpty = answer([{ id: 'qemu/100', vmid: 100 }, { id: '', vmid: 0 }]);
    expect(compareAnswers(recorded, withEmpty, { upids: new Map(), knownIds: new Set(['', '100']) })).to.deep.equal([]);
  });

  it('the UPID a clone answered is replaced in later paths by the one the replay got', async () => {
    const clone = index.exchanges.findIndex((x) => x.path.endsWith('/clone'));
    const upid = (JSON.parse((JSON.parse(readFileSync(join(dir, (index.exchanges[clone] as IndexedExchange).file), 'utf8')) as FixtureFile).body) as { data: string }).data;
    // A status read of the clone's task by its UPID, inserted right after the clone: it only answers if the path carries the replay's UPID.
    const statusFile = 'upid-status.json';
    writeFileSync(join(dir, statusFile), JSON.stringify({ status: 200, reason: 'OK', headers: {}, body: JSON.stringify({ data: { upid, status: 'stopped', exitstatus: 'OK', node: 'pv1-1', type: 'qmclone', id: '9001', user: 'root@pam', tokenid: 'provisioner', pid: 1, pstart: 1, starttime: 1 } }) }));
    const read: IndexedExchange = { file: statusFile, method: 'GET', path: `/nodes/pv1-1/tasks/${encodeURIComponent(upid)}/status`, startMs: 0, ms: 1 };
    index.exchanges.splice(clone + 1, 0, read);
    writeFileSync(join(dir, 'index.json'), JSON.stringify(index));
    expect(differenceLines(await replayRecording(loadRecording(dir)))).to.deep.equal([]);
  });

  it('a bad recording is refused naming the field (exit 2)', () => {
    const refused = (edit: (i: Record<string, unknown>) => void): string => {
      const raw = JSON.parse(readFileSync(join(SIM_CREATE, 'index.json'), 'utf8')) as Record<string, unknown>;
      edit(raw);
      writeFileSync(join(dir, 'index.json'), JSON.stringify(raw));
      try {
        loadRecording(dir);
        return 'accepted';
      } catch (err) {
        expect(err).to.be.instanceOf(RecordingError);
        return (err as Error).message;
      }
    };
    expect(refused((i) => (i.format = 'x'))).to.match(/^index\.json: format: must be/);
    expect(refused((i) => ((i.exchanges as Record<string, unknown>[])[2] as Record<string, unknown>).method = 'PATCH')).to.match(/exchanges\[2\]\.method/);
    expect(refused((i) => ((i.inventory as Record<string, unknown>).nodes = []))).to.match(/inventory\.nodes/);
    expect(() => loadRecording(join(dir, 'nowhere'))).to.throw(RecordingError, /no index\.json/);
  });
});
