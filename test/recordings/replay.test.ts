// Every recording shipped in fixtures/recordings/ replays clean against the
// simulator set up with its inventory (SPEC 33): the sim-create run, and
// the seeds' captures in fixtures/ with the requests that produce them.
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

  it('ships the sim-create recording and the seeds', () => {
    expect(recordings).to.include.members(['sim-create', 'seeds']);
  });

  it("the seeds' recording names every fixture in fixtures/: replayed, or not covered with why", () => {
    const index = loadRecording(join(RECORDINGS, 'seeds')).index;
    const named = new Set([...index.exchanges, ...(index.notCovered ?? [])].map((e) => basename(e.file)));
    const fixtures = readdirSync(FIXTURES_DIR).filter((f) => f.endsWith('.json'));
    expect(fixtures.filter((f) => !named.has(f))).to.deep.equal([]);
    for (const entry of index.notCovered ?? []) expect(entry.why, entry.file).to.have.length.above(10);
  });

  for (const name of recordings) {
    it(`fixtures/recordings/${name}`, async () => {
      const result = await replayRecording(loadRecording(join(RECORDINGS, name)));
      expect(differenceLines(result)).to.deep.equal([]);
      expect(result.requests).to.be.above(0);
    });
  }
});
