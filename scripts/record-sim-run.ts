// `npx tsx scripts/record-sim-run.ts [DIR]`: records the provider's create
// and delete against the simulator (test/support/replay/record-sim-run.ts)
// into DIR, fixtures/recordings/sim-create/ by default (new or empty), the
// recording the replay suite ships with until `pve-provisioner verify
// --create --record` regenerates it (SPEC 33).
import { recordSimRun } from '../test/support/replay/record-sim-run.js';

const dir = process.argv[2] ?? 'fixtures/recordings/sim-create';
await recordSimRun(dir);
process.stdout.write(`recorded the provider's create and delete against the simulator into ${dir}\n`);
