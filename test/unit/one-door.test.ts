// SPEC 1, 6: jobs enter the queues through one door (src/queue/enqueue.ts),
// which validates, picks the queue and the job id. A job added anywhere
// else in the service would skip all three, so none may be.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { expect } from 'chai';

const root = resolve(import.meta.dirname, '..', '..');
const DOOR = 'src/queue/enqueue.ts';
/**
 * The webhook deliveries' queue (SPEC 27) adds its own jobs: a delivery
 * is not a caller job (no job table entry, API or CLI), and its one add
 * gives every delivery the id of its event. Allowed here, and nowhere
 * else, as long as it adds to that queue only.
 */
const WEBHOOK_DOOR = 'src/queue/webhook-queue.ts';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** A BullMQ add on a queue (`vmQueue.add(`, `queues.system.add(`, `vm.add(`), a bulk add or a schedule. */
const ADDS = /\b(\w*queue|vm|system)\.add\(|\.addBulk\(|\.upsertJobScheduler\(/i;

describe('one door for enqueueing (SPEC 1, 6)', () => {
  it('no file of the service but the door adds or schedules a job', () => {
    const files = [...sources(join(root, 'src')), ...sources(join(root, 'jobs'))]
      .map((file) => relative(root, file))
      .filter((file) => file !== DOOR && file !== WEBHOOK_DOOR && !file.startsWith('src/sim/'));
    const adding = files.filter((file) => readFileSync(join(root, file), 'utf8').split('\n').some((line) => ADDS.test(line)));
    expect(adding).to.deep.equal([]);
  });

  it('the webhook queue adds only deliveries, on its one queue, in one place', () => {
    const text = readFileSync(join(root, WEBHOOK_DOOR), 'utf8');
    expect(text.split('\n').filter((line) => ADDS.test(line))).to.have.length(1);
    expect(text.match(/new Queue\(/g)).to.have.length(1);
    expect(text).to.match(/new Queue\(WEBHOOK_QUEUE,/);
  });

  it('the door itself is found by the same pattern', () => {
    expect(readFileSync(join(root, DOOR), 'utf8').split('\n').some((line) => ADDS.test(line))).to.equal(true);
  });
});
