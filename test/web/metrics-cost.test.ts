// SPEC 9, 24: /metrics reads its Redis figures (BullMQ's queue counts,
// the stored node health) at most once per http.metricsCacheSeconds, and
// the scrapes meanwhile share them: two scrapes in a row cost Redis the
// commands of one. Counted with MONITOR.
import { expect } from 'chai';
import { CAN_MONITOR, monitorPrefix, type RedisMonitor } from '../support/redis-monitor.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('/metrics reads Redis once per http.metricsCacheSeconds (SPEC 9, 24)', function () {
  this.timeout(60_000);
  let web: TestWeb;
  let monitor: RedisMonitor;

  beforeEach(async function () {
    if (!CAN_MONITOR) this.skip();
    web = await buildTestWeb({ metricsCacheSeconds: 5 });
    monitor = await monitorPrefix(web.prefix);
  });
  afterEach(async () => {
    monitor?.close();
    await web?.close();
  });

  /** Counts from here: what was sent before has come through the monitor and is dropped. */
  const countFromNow = async (): Promise<void> => {
    await monitor.settle();
    monitor.reset();
  };
  const scrape = async (): Promise<{ body: string; commands: number }> => {
    await countFromNow();
    const res = await web.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${web.token}` } });
    expect(res.statusCode).to.equal(200);
    await monitor.settle();
    return { body: res.body, commands: monitor.commands().length };
  };
  const enqueue = async (name: string): Promise<void> => {
    const res = await web.app.inject({ method: 'POST', url: '/v1/vms', headers: { authorization: `Bearer ${web.token}` }, payload: { name } });
    expect(res.statusCode).to.equal(202);
  };

  it('a second scrape, and three at once, within the interval cost no Redis command; after it the figures are read again', async () => {
    await enqueue('metrics-one');
    const first = await scrape();
    expect(first.commands, 'the first scrape reads Redis').to.be.greaterThan(0);
    expect(first.body).to.contain('bullmq_jobs{queue="vm", state="waiting"} 1');
    await enqueue('metrics-two');
    const second = await scrape();
    expect(second.commands, monitor.commands().join(' ')).to.equal(0);
    expect(second.body, 'the figures of the first scrape').to.contain('bullmq_jobs{queue="vm", state="waiting"} 1');
    await countFromNow();
    await Promise.all([1, 2, 3].map(() => web.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${web.token}` } })));
    await monitor.settle();
    expect(monitor.commands().length).to.equal(0);

    await sleep(5_100);
    const later = await scrape();
    expect(later.commands).to.be.greaterThan(0);
    expect(later.body).to.contain('bullmq_jobs{queue="vm", state="waiting"} 2');
  });

  it('three scrapes at once after the interval read Redis as one scrape does', async () => {
    // The first scrape after start may do one-time work (a script loaded into Redis): the one compared is the second.
    await scrape();
    await sleep(5_100);
    const alone = await scrape();
    const aloneCommands = monitor.commands();
    await sleep(5_100);
    await countFromNow();
    await Promise.all([1, 2, 3].map(() => web.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${web.token}` } })));
    await monitor.settle();
    expect(monitor.commands().length, `three at once: ${monitor.commands().join(' ')}; one: ${aloneCommands.join(' ')}`).to.equal(alone.commands);
  });
});
