// SPEC 24: no client holds a connection to the web app for ever. A
// refused request closes its connection without reading the body; a
// whole request must arrive within http.requestTimeoutMs; a silent
// connection goes after http.idleTimeoutMs, an idle keep-alive one after
// http.keepAliveTimeoutMs; past http.maxConnections a new connection is
// closed on arrival and a warning says so.
import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { loadConfig } from '../../src/config/index.js';
import { DEFAULT_LISTENER_LIMITS, listenerLimitsOf } from '../../src/listener-limits.js';
import { serveMetrics } from '../../src/web/metrics-server.js';
import { captureLogger } from '../support/capture-logger.js';
import { eventually, openRaw, slowBodyRequest, type RawConnection } from '../support/raw-connection.js';
import { basicHeader, buildTestWeb, type TestWeb } from './helpers.js';

async function listen(web: TestWeb): Promise<number> {
  await web.app.listen({ host: '127.0.0.1', port: 0 });
  return (web.app.server.address() as AddressInfo).port;
}

async function healthz(port: number): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`);
  await res.arrayBuffer();
  return res.status;
}

/** The first status /healthz answers within `deadlineMs`; a connection closed on arrival is tried again. */
async function healthzWithin(port: number, deadlineMs: number): Promise<number> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    try {
      return await healthz(port);
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describe('web listener limits (SPEC 24)', () => {
  const opened: RawConnection[] = [];
  let web: TestWeb | undefined;
  afterEach(async () => {
    for (const connection of opened.splice(0)) connection.stop();
    await web?.close();
    web = undefined;
  });

  /** A connection closed after the test, whatever happens. */
  async function open(port: number): Promise<RawConnection> {
    const connection = await openRaw(port);
    opened.push(connection);
    return connection;
  }

  async function slowBody(port: number, path: string, headers: Record<string, string> = {}): Promise<RawConnection> {
    const connection = await open(port);
    connection.socket.write(slowBodyRequest(path, 200_000, headers));
    connection.trickle(' ', 200);
    return connection;
  }

  it('the limits a listener takes when none are given are the http.* defaults of the config', () => {
    expect(DEFAULT_LISTENER_LIMITS).to.deep.equal(listenerLimitsOf(loadConfig({ env: {} }).http));
  });

  it('300 slow bodies without a token each get their 401 and lose their connection, and /healthz answers meanwhile', async () => {
    web = await buildTestWeb();
    const port = await listen(web);
    const connections = await Promise.all(Array.from({ length: 300 }, () => slowBody(port, '/v1/vms')));
    expect(await healthz(port)).to.equal(200);
    await eventually('every slow body closed by the server', () => connections.every((c) => c.isClosed()), 30_000);
    for (const connection of connections) expect(connection.received()).to.match(/^HTTP\/1\.1 401 /);
    expect(await healthz(port)).to.equal(200);
  });

  it('a wrong token or a wrong board password is answered 401 and its connection closed, the body unread', async () => {
    web = await buildTestWeb();
    const port = await listen(web);
    const wrongToken = await slowBody(port, '/v1/vms', { authorization: 'Bearer not-the-token' });
    const wrongPassword = await slowBody(port, 'PUT /admin/queues/api/queues/vm/pause', { authorization: basicHeader(web.boardUser, 'wrong') });
    await eventually('both closed by the server', () => wrongToken.isClosed() && wrongPassword.isClosed(), 20_000);
    expect(wrongToken.received()).to.match(/^HTTP\/1\.1 401 /).and.to.match(/\r\nconnection: close\r\n/i);
    expect(wrongPassword.received()).to.match(/^HTTP\/1\.1 401 /);
  });

  it('starts and answers with http.requestTimeoutMs above Node\'s own 300 s', async () => {
    web = await buildTestWeb({ requestTimeoutMs: 600_000 });
    expect(await healthz(await listen(web))).to.equal(200);
  });

  it('a body sent to no route is answered 404 and its connection closed, the body unread', async () => {
    web = await buildTestWeb({ requestTimeoutMs: 600_000 });
    const port = await listen(web);
    const unknown = await slowBody(port, '/no-such-route');
    await eventually('closed by the server', () => unknown.isClosed(), 20_000);
    expect(unknown.received()).to.match(/^HTTP\/1\.1 404 /).and.to.match(/\r\nconnection: close\r\n/i);
    expect(await healthz(port)).to.equal(200);
  });

  it('a body trickled with the right token is cut off after http.requestTimeoutMs', async () => {
    web = await buildTestWeb({ requestTimeoutMs: 1_000 });
    const port = await listen(web);
    const connection = await slowBody(port, '/v1/vms', { authorization: `Bearer ${web.token}` });
    const closedAfterMs = await Promise.race([connection.closed, new Promise<number>((resolve) => setTimeout(() => resolve(-1), 20_000))]);
    expect(closedAfterMs, 'the server never closed the connection').to.be.greaterThan(0);
    expect(closedAfterMs).to.be.at.least(900);
    expect(connection.received()).to.match(/^HTTP\/1\.1 408 /);
  });

  it('a connection that stops half-way through its headers is closed after http.idleTimeoutMs', async () => {
    web = await buildTestWeb({ idleTimeoutMs: 500 });
    const port = await listen(web);
    const connection = await open(port);
    connection.socket.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n');
    await eventually('the silent connection closed by the server', () => connection.isClosed(), 20_000);
    expect(await connection.closed).to.be.at.least(400);
  });

  it('an idle keep-alive connection is closed after http.keepAliveTimeoutMs', async () => {
    web = await buildTestWeb({ keepAliveTimeoutMs: 300 });
    const port = await listen(web);
    const connection = await open(port);
    connection.socket.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    await eventually('the answer', () => connection.received().includes('\r\n\r\n'), 20_000);
    expect(connection.received()).to.match(/^HTTP\/1\.1 200 /).and.to.match(/keep-alive/i);
    await eventually('the idle keep-alive connection closed by the server', () => connection.isClosed(), 20_000);
  });

  it('past http.maxConnections a new connection is closed unanswered, a warning names the key, and a freed slot serves again', async () => {
    const { logger, records } = captureLogger();
    web = await buildTestWeb({ maxConnections: 3 }, { logger });
    const port = await listen(web);
    let accepted = 0;
    web.app.server.on('connection', () => (accepted += 1));
    const held = await Promise.all(
      [0, 1, 2].map(async () => {
        const connection = await open(port);
        connection.socket.write('GET /healthz HTTP/1.1\r\n');
        return connection;
      }),
    );
    await eventually('the three connections accepted', () => accepted === 3, 5_000);
    const extra = await open(port);
    extra.socket.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    await eventually('the connection past the bound closed', () => extra.isClosed(), 20_000);
    expect(extra.received()).to.equal('');
    const warning = records.find((r) => r.level === 40 && String(r.msg).includes('http.maxConnections'));
    expect(warning, JSON.stringify(records.map((r) => r.msg))).to.not.equal(undefined);
    expect(warning).to.include({ maxConnections: 3, listener: 'web' });
    held[0]?.stop();
    expect(await healthzWithin(port, 10_000)).to.equal(200);
  });

  it("a lone worker's /metrics server cuts off a trickled body after the request timeout and closes connections past its bound", async () => {
    const { logger, records } = captureLogger();
    const metrics = await serveMetrics(new Registry(), '127.0.0.1', 0, { limits: { ...DEFAULT_LISTENER_LIMITS, requestTimeoutMs: 1_000, maxConnections: 2 }, logger });
    try {
      const port = Number(new URL(metrics.url).port);
      const slow = await open(port);
      slow.socket.write(slowBodyRequest('/metrics', 100_000));
      slow.trickle(' ', 200);
      const held = await open(port);
      held.socket.write('GET /metrics HTTP/1.1\r\n');
      const extra = await open(port);
      await eventually('the connection past the bound closed', () => extra.isClosed(), 20_000);
      expect(extra.received()).to.equal('');
      expect(records.filter((r) => r.level === 40 && r.listener === 'worker metrics')).to.have.length(1);
      await eventually('the slow body closed by the server', () => slow.isClosed(), 20_000);
      expect(await slow.closed).to.be.at.least(900);
    } finally {
      for (const connection of opened.splice(0)) connection.stop();
      await metrics.close();
    }
  });
});
