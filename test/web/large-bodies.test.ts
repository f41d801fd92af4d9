// SPEC 24: the web process reads at most LARGE_BODIES_AT_ONCE bodies over
// SMALL_BODY_BYTES at a time, so clients with a token cannot make it hold
// a body at the (field-table sized) limit on every connection. One more
// is 503 with Retry-After, its body unread; smaller bodies are not held
// back; a place is given back when its request ends.
import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { LARGE_BODIES_AT_ONCE, SMALL_BODY_BYTES } from '../../src/web/large-bodies.js';
import { eventually, openRaw, slowBodyRequest, type RawConnection } from '../support/raw-connection.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

describe('large request bodies at once (SPEC 24)', () => {
  let web: TestWeb;
  let port: number;
  const opened: RawConnection[] = [];
  before(async () => {
    web = await buildTestWeb();
    await web.app.listen({ host: '127.0.0.1', port: 0 });
    port = (web.app.server.address() as AddressInfo).port;
  });
  after(async () => {
    for (const connection of opened.splice(0)) connection.stop();
    await web.close();
  });

  const auth = (): Record<string, string> => ({ authorization: `Bearer ${web.token}` });
  const post = (body: string): Promise<Response> => fetch(`http://127.0.0.1:${port}/v1/vms`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body });

  it('refuses one large body past the bound with 503 and Retry-After, closing it unread; small bodies pass; a place comes back when a request ends', async () => {
    for (let i = 0; i <= LARGE_BODIES_AT_ONCE; i++) {
      const connection = await openRaw(port);
      opened.push(connection);
      connection.socket.write(slowBodyRequest('/v1/vms', SMALL_BODY_BYTES + 1024, auth()));
      connection.trickle(' ', 200);
    }
    await eventually('one of the large bodies refused', () => opened.some((c) => c.received() !== ''), 20_000);
    const refused = opened.filter((c) => c.received() !== '');
    expect(refused).to.have.length(1);
    const answer = refused[0]?.received() ?? '';
    expect(answer).to.match(/^HTTP\/1\.1 503 /).and.to.match(/\r\nretry-after: 1\r\n/i).and.to.match(/\r\nconnection: close\r\n/i);
    await eventually('the refused connection closed by the server', () => refused[0]?.isClosed() === true, 20_000);

    // A small body is read while every place is taken: a 400 shows it was parsed.
    expect((await post('{"name": 1')).status).to.equal(400);

    const holder = opened.find((c) => c.received() === '');
    holder?.stop();
    const large = `{${' '.repeat(SMALL_BODY_BYTES)}`;
    const until = Date.now() + 20_000;
    let status = (await post(large)).status;
    while (status === 503 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await post(large)).status;
    }
    expect(status, 'a large body once a place is free').to.equal(400);
  });
});
