// SPEC 24: a wrong bearer token or Bull Board password costs its address
// a delay that doubles with each failure, up to a ceiling; failures are
// counted by realm in /metrics and warned about at most once per address
// per minute; the addresses are remembered in a bounded LRU, an IPv6
// address by its /64.
import { expect } from 'chai';
import type { FastifyRequest } from 'fastify';
import { Socket } from 'node:net';
import { Registry } from 'prom-client';
import { silentLogger } from '../../src/log.js';
import { penaltyKey } from '../../src/web/auth/address-key.js';
import { FailedAuth, FAILED_AUTH_DEFAULTS } from '../../src/web/auth/failed-auth.js';
import { captureLogger } from '../support/capture-logger.js';
import { basicHeader, buildTestWeb, type TestWeb } from './helpers.js';

describe('failed authentication (SPEC 24)', () => {
  describe('the delay per address', () => {
    const quick = { ...FAILED_AUTH_DEFAULTS, firstDelayMs: 1, maxDelayMs: 16 };

    it('doubles with each failure from one address up to maxDelayMs, and leaves other addresses alone', async () => {
      const failures = new FailedAuth(new Registry(), silentLogger(), quick);
      const seen: number[] = [];
      for (let i = 0; i < 7; i++) {
        seen.push(failures.delayFor('192.0.2.7'));
        await failures.refused('192.0.2.7', 'api');
      }
      expect(seen).to.deep.equal([1, 2, 4, 8, 16, 16, 16]);
      expect(failures.delayFor('192.0.2.8')).to.equal(1);
    });

    it('ends the delay at once when the client hangs up, holding nothing of the request, and still counts the failure', async () => {
      const failures = new FailedAuth(new Registry(), silentLogger(), { ...quick, firstDelayMs: 600_000, maxDelayMs: 1_200_000 });
      const hungUp = new Socket();
      const waiting = failures.refusedRequest({ ip: '192.0.2.10', raw: { socket: hungUp } } as unknown as FastifyRequest, 'api');
      hungUp.destroy();
      // A delay that ran on would outlast the test's timeout.
      await waiting;
      await failures.refusedRequest({ ip: '192.0.2.10', raw: { socket: hungUp } } as unknown as FastifyRequest, 'api');
      expect(failures.delayFor('192.0.2.10')).to.equal(1_200_000);
      expect(hungUp.listenerCount('close')).to.equal(0);
    });

    it('counts an IPv6 address by its /64 and an IPv4-mapped one as the IPv4 address', async () => {
      expect(penaltyKey('2001:db8:1:2:aaaa::1')).to.equal('2001:db8:1:2::/64');
      expect(penaltyKey('2001:db8:1:2::ffff')).to.equal('2001:db8:1:2::/64');
      expect(penaltyKey('2001:db8::1')).to.equal('2001:db8:0:0::/64');
      expect(penaltyKey('::ffff:192.0.2.7')).to.equal('192.0.2.7');
      expect(penaltyKey('192.0.2.7')).to.equal('192.0.2.7');
      const failures = new FailedAuth(new Registry(), silentLogger(), quick);
      await failures.refused('2001:db8:1:2::1', 'api');
      await failures.refused('2001:db8:1:2::2', 'api');
      expect(failures.delayFor('2001:db8:1:2:ffff:ffff:ffff:ffff')).to.equal(4);
      expect(failures.delayFor('2001:db8:1:3::1')).to.equal(1);
    });

    it('remembers at most maxAddresses addresses: the one that failed least recently is forgotten', async () => {
      const failures = new FailedAuth(new Registry(), silentLogger(), { ...quick, maxAddresses: 3 });
      for (const address of ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4']) await failures.refused(address, 'api');
      expect(failures.delayFor('192.0.2.1')).to.equal(1);
      expect(['192.0.2.2', '192.0.2.3', '192.0.2.4'].map((a) => failures.delayFor(a))).to.deep.equal([2, 2, 2]);
    });

    it('warns again after warnEveryMs with the count of failures since the last warning', async () => {
      const { logger, records } = captureLogger();
      const failures = new FailedAuth(new Registry(), logger, { ...quick, warnEveryMs: 1_000 });
      for (let i = 0; i < 3; i++) await failures.refused('192.0.2.5', 'board');
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await failures.refused('192.0.2.5', 'board');
      const lines = records.filter((r) => r.level === 40);
      expect(lines.map((r) => r.failures)).to.deep.equal([1, 3]);
      expect(lines[1]).to.include({ address: '192.0.2.5', realm: 'board' });
    });

    it('forgets an address after forgetAfterMs without a failure', async () => {
      const failures = new FailedAuth(new Registry(), silentLogger(), { ...quick, forgetAfterMs: 1_000 });
      await failures.refused('192.0.2.9', 'api');
      await failures.refused('192.0.2.9', 'api');
      expect(failures.delayFor('192.0.2.9')).to.equal(4);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(failures.delayFor('192.0.2.9')).to.equal(1);
    });
  });

  describe('in the web app', () => {
    let web: TestWeb;
    let records: Record<string, unknown>[];
    before(async () => {
      const captured = captureLogger();
      records = captured.records;
      web = await buildTestWeb({}, { logger: captured.logger, failedAuth: { firstDelayMs: 40, maxDelayMs: 160, warnEveryMs: 60_000 } });
    });
    after(() => web.close());

    const wrongToken = (remoteAddress: string) => web.app.inject({ method: 'GET', url: '/v1/vms', remoteAddress, headers: { authorization: 'Bearer wrong-token' } });
    const warnings = (address: string) => records.filter((r) => r.level === 40 && r.address === address);

    it('answers each wrong token from an address later than the one before, up to the ceiling', async () => {
      const took: number[] = [];
      for (let i = 0; i < 4; i++) {
        const started = Date.now();
        expect((await wrongToken('198.51.100.1')).statusCode).to.equal(401);
        took.push(Date.now() - started);
      }
      // Lower bounds only: a loaded machine may be slower, never faster.
      expect(took[0]).to.be.at.least(35);
      expect(took[1]).to.be.at.least(75);
      expect(took[2]).to.be.at.least(155);
      expect(took[3]).to.be.at.least(155);
    });

    it('warns once for an address however many failures follow within the minute, naming the address and never the token', async () => {
      for (let i = 0; i < 3; i++) await wrongToken('198.51.100.2');
      const lines = warnings('198.51.100.2');
      expect(lines).to.have.length(1);
      expect(lines[0]).to.include({ realm: 'api', failures: 1 });
      expect(JSON.stringify(records)).to.not.contain('wrong-token');
      await wrongToken('198.51.100.3');
      expect(warnings('198.51.100.3')).to.have.length(1);
    });

    it('counts wrong tokens and wrong board passwords by realm in /metrics, and not a request that sends none', async () => {
      const before = await failureCounts();
      await wrongToken('198.51.100.4');
      const board = await web.app.inject({ method: 'GET', url: '/admin/queues/api/queues', remoteAddress: '198.51.100.4', headers: { authorization: basicHeader(web.boardUser, 'wrong') } });
      expect(board.statusCode).to.equal(401);
      expect((await web.app.inject({ method: 'GET', url: '/v1/vms', remoteAddress: '198.51.100.4' })).statusCode).to.equal(401);
      expect((await web.app.inject({ method: 'GET', url: '/admin/queues', remoteAddress: '198.51.100.4' })).statusCode).to.equal(401);
      const after = await failureCounts();
      expect(after.api - before.api).to.equal(1);
      expect(after.board - before.board).to.equal(1);
    });

    async function failureCounts(): Promise<{ api: number; board: number }> {
      const text = (await web.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${web.token}` } })).body;
      const count = (realm: string): number => Number(new RegExp(`^pvep_http_auth_failures_total\\{realm="${realm}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
      return { api: count('api'), board: count('board') };
    }
  });
});
