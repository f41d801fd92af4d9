// Every recording shipped in fixtures/recordings/ replays clean against the
// simulator set up with its inventory (SPEC 33): the sim-create run, and
// the seeds' captures in fixtures/ with the requests that produce them
// (seeds on the single host pv1-1, seeds-cluster on pv1-1 and pv1-2).
import { readdirSync, existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expect } from 'chai';
import { FIXTURES_DIR } from '../support/fixtures.js';
import { loadRecording } from '../support/replay/load-recording.js';
import { differenceLines, replayRecording } from '../support/replay/replay.js';

const RECORDINGS = join(FIXTURES_DIR, 'recordings');
const recordings = readdirSync(RECORDINGS).filter((name) => existsSync(join(RECORDINGS, name, 'index.json')));

describe('the shipped recordings replay clean against the simulator (SPEC 33)', function () {
  this.timeout(120_000);

  it('ships the sim-create recording and the seeds, on one node and on two', () => {
    expect(recordings).to.include.members(['sim-create', 'seeds', 'seeds-cluster']);
  });

  it("the seeds' recordings name every fixture in fixtures/: replayed, or not covered with why", () => {
    const indexes = ['seeds', 'seeds-cluster'].map((name) => loadRecording(join(RECORDINGS, name)).index);
    const notCovered = indexes.flatMap((index) => index.notCovered ?? []);
    const named = new Set([...indexes.flatMap((index) => index.exchanges), ...notCovered].map((e) => basename(e.file)));
    const fixtures = readdirSync(FIXTURES_DIR).filter((f) => f.endsWith('.json'));
    expect(fixtures.filter((f) => !named.has(f))).to.deep.equal([]);
    for (const entry of notCovered) expect(entry.why, entry.file).to.have.length.above(10);
  });

  for (const name of recordings) {
    it(`fixtures/recordings/${name}`, async () => {
      const result = await replayRecording(loadRecording(join(RECORDINGS, name)));
      expect(differenceLines(result)).to.deep.equal([]);
      expect(result.requests).to.be.above(0);
    });
  }
});
