// SPEC 6: /readyz says ready only when Redis answers, a worker was seen
// recently and the last health job found a node fit to take VMs, and
// says which check failed.
import { expect } from 'chai';
import { checkReadiness, type LastHealth, type ReadinessSources } from '../../src/web/readiness.js';

const healthy: LastHealth = { at: '2026-11-30T10:00:00Z', nodes: [{ node: 'pve1', ok: true, reasons: [] }] };

function sources(overrides: Partial<ReadinessSources>): ReadinessSources {
  return {
    pingRedis: () => Promise.resolve(),
    liveWorkers: () => Promise.resolve([{ id: 'w1', host: 'h1' }]),
    lastHealth: () => Promise.resolve(healthy),
    ...overrides,
  };
}

describe('readiness (SPEC 6)', () => {
  it('is ready when all three checks pass', async () => {
    const report = await checkReadiness(sources({}));
    expect(report.ready).to.equal(true);
    expect(report.checks.workers.live).to.equal(1);
  });

  const cases: [string, Partial<ReadinessSources>, 'redis' | 'workers' | 'health', RegExp][] = [
    ['Redis does not answer', { pingRedis: () => Promise.reject(new Error('connect ECONNREFUSED')) }, 'redis', /ECONNREFUSED/],
    ['no worker heartbeat', { liveWorkers: () => Promise.resolve([]) }, 'workers', /no worker/],
    ['no health result yet', { lastHealth: () => Promise.resolve(undefined) }, 'health', /no health result/],
    [
      'every node failed its health check',
      { lastHealth: () => Promise.resolve({ at: 'x', nodes: [{ node: 'pve1', ok: false, reasons: [{ reason: 'Unreachable', detail: 'connect ECONNREFUSED' }] }] }) },
      'health',
      /no node fit/,
    ],
  ];
  for (const [what, override, check, reason] of cases) {
    it(`is not ready when ${what}, and says so`, async () => {
      const report = await checkReadiness(sources(override));
      expect(report.ready).to.equal(false);
      expect(report.checks[check].ok).to.equal(false);
      expect(report.checks[check].error).to.match(reason);
    });
  }

  it('is ready while a node is fit for one image though another image is broken there, and not once none is (SPEC 27)', async () => {
    const broken = { reason: 'TemplateNotFound' as const, detail: 'template 9501 on pve1 does not exist' };
    const node = (ubuntuOk: boolean) => ({
      node: 'pve1',
      ok: false,
      reasons: [broken],
      images: [
        { image: 'debian', ok: false, reasons: [broken] },
        { image: 'ubuntu', ok: ubuntuOk, reasons: ubuntuOk ? [] : [broken] },
      ],
    });
    const oneImage = await checkReadiness(sources({ lastHealth: () => Promise.resolve({ at: 'x', nodes: [node(true)] }) }));
    expect(oneImage.ready).to.equal(true);
    const none = await checkReadiness(sources({ lastHealth: () => Promise.resolve({ at: 'x', nodes: [node(false)] }) }));
    expect(none.ready).to.equal(false);
    expect(none.checks.health.error).to.match(/no node fit/);
  });

  it('reports the failing node reasons', async () => {
    const nodes = [{ node: 'pve1', ok: false, reasons: [{ reason: 'NodeOffline' as const, detail: 'status offline' }] }];
    const report = await checkReadiness(sources({ lastHealth: () => Promise.resolve({ at: 'x', nodes }) }));
    expect(report.checks.health.nodes).to.deep.equal(nodes);
  });
});
