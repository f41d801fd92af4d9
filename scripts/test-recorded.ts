// `npm run test:recorded -- DIR` (SPEC 33): replays a recording made by
// `pve-provisioner verify --record DIR` against the simulator set up with
// the recorded host's inventory, and lists every difference. Exit 0 when
// none, 1 when any, 2 on bad usage (no DIR, no index.json, a bad index).
import { RecordingError, loadRecording } from '../test/support/replay/load-recording.js';
import { differenceLines, replayRecording } from '../test/support/replay/replay.js';

const USAGE = 'usage: npm run test:recorded -- DIR   (DIR: a recording written by pve-provisioner verify --record)';

async function main(args: string[]): Promise<number> {
  const dir = args.find((a) => !a.startsWith('-'));
  if (dir === undefined || args.length !== 1) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  let recording;
  try {
    recording = loadRecording(dir);
  } catch (err) {
    if (!(err instanceof RecordingError)) throw err;
    process.stderr.write(`${err.message}\n${USAGE}\n`);
    return 2;
  }
  const result = await replayRecording(recording);
  const lines = differenceLines(result);
  for (const line of lines) process.stdout.write(`${line}\n`);
  process.stdout.write(`${dir}: ${result.requests} requests replayed, ${lines.length === 0 ? 'no difference' : `${lines.length} differences`}\n`);
  return lines.length === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
