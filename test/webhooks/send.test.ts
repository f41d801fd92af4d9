// SPEC 27: one delivery's POST against a local server: the stored body
// as it is, signed; anything but a 2xx, a redirect, a timeout or a
// refused connection throws; the error never holds the URL.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { ANSWER_READ_LIMIT_BYTES, DeliveryError, sendDelivery, type Delivery } from '../../src/webhooks/send.js';
import { verifySignature } from '../../src/webhooks/signature.js';
import { freePort } from '../support/free-port.js';
import { endlessAnswer } from './endless-answer.js';

const SECRET = 'send-test-secret-9a8b7c';
const DELIVERY: Delivery = { deliveryId: 'vm.ready-create-s-1', event: 'vm.ready', body: '{"deliveryId":"vm.ready-create-s-1",  "event":"vm.ready"}' };

interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  raw: string;
}

async function server(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; seen: Seen[]; connectionsOpened(): number; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const s: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
      answer(req, res);
    });
  });
  let opened = 0;
  s.on('connection', () => (opened += 1));
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  return {
    url: `http://hookuser:hookpass-123@127.0.0.1:${port}/in`,
    seen,
    connectionsOpened: () => opened,
    close: async () => {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
}

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the delivery to fail');
}

describe('webhook POST (SPEC 27)', () => {
  it('sends the body bytes unchanged with its signature, delivery id, event, type and user agent; resolves with the 2xx', async () => {
    const s = await server((_req, res) => res.writeHead(204).end());
    try {
      expect(await sendDelivery(DELIVERY, { url: s.url, secret: SECRET, timeoutMs: 5000 })).to.equal(204);
      const [one] = s.seen;
      expect(s.seen).to.have.length(1);
      expect(one?.raw).to.equal(DELIVERY.body);
      expect(one?.path).to.equal('/in');
      expect(verifySignature(one?.raw ?? '', SECRET, one?.headers['x-signature-256'] as string)).to.equal(true);
      expect(one?.headers).to.deep.include({ 'content-type': 'application/json', 'x-delivery-id': DELIVERY.deliveryId, 'x-webhook-event': 'vm.ready' });
      expect(one?.headers['user-agent']).to.match(/^pve-provisioner-webhooks\//);
    } finally {
      await s.close();
    }
  });

  for (const status of [400, 404, 500, 503]) {
    it(`a ${status} answer throws, naming the status and not the URL`, async () => {
      const s = await server((_req, res) => res.writeHead(status).end('no'));
      try {
        const err = await failure(sendDelivery(DELIVERY, { url: s.url, secret: SECRET, timeoutMs: 5000 }));
        expect(err).to.be.instanceOf(DeliveryError);
        expect(err.message).to.equal(`webhook receiver (webhooks.url) answered ${status}`);
      } finally {
        await s.close();
      }
    });
  }

  it('a redirect is not followed: it throws, and nothing else is asked', async () => {
    const s = await server((_req, res) => res.writeHead(302, { location: '/elsewhere' }).end());
    try {
      const err = await failure(sendDelivery(DELIVERY, { url: s.url, secret: SECRET, timeoutMs: 5000 }));
      expect(err.message).to.equal('webhook receiver (webhooks.url) answered 302');
      expect(s.seen.map((r) => r.path)).to.deep.equal(['/in']);
    } finally {
      await s.close();
    }
  });

  it('a receiver that never answers fails after timeoutMs; a refused connection fails at once; neither error holds the URL', async () => {
    const s = await server(() => undefined);
    try {
      const err = await failure(sendDelivery(DELIVERY, { url: s.url, secret: SECRET, timeoutMs: 200 }));
      expect(err.message).to.equal('webhook receiver (webhooks.url) not reached: ETIMEDOUT');
    } finally {
      await s.close();
    }
    const refused = await failure(sendDelivery(DELIVERY, { url: `http://hookuser:hookpass-123@127.0.0.1:${await freePort()}/in`, secret: SECRET, timeoutMs: 5000 }));
    expect(refused.message).to.equal('webhook receiver (webhooks.url) not reached: ECONNREFUSED');
    expect(`${refused.message}${String(refused.stack)}`).to.not.include('hookpass');
  });

  it('reads a few KiB of a huge answer and closes the connection while the receiver is still writing', async () => {
    const answer = await endlessAnswer(300 * 1024 * 1024);
    try {
      expect(await sendDelivery(DELIVERY, { url: answer.url, secret: SECRET, timeoutMs: 60_000 })).to.equal(200);
      const { written, finished } = await answer.closed;
      expect(finished, 'the receiver wrote its whole answer').to.equal(false);
      // What the socket buffers held is all that left the receiver; the delivery itself read at most the cap.
      expect(written).to.be.below(64 * 1024 * 1024);
      expect(ANSWER_READ_LIMIT_BYTES).to.be.at.most(16 * 1024);
    } finally {
      await answer.close();
    }
  });

  it("keeps a short answer's connection for the next delivery and closes one cut short, so the next delivery gets a fresh one", async () => {
    const sizes = [10, 10, 1024 * 1024, 10];
    const s = await server((_req, res) => res.writeHead(200).end(Buffer.alloc(sizes.shift() ?? 0, 'x')));
    try {
      for (let i = 0; i < 4; i += 1) expect(await sendDelivery(DELIVERY, { url: s.url, secret: SECRET, timeoutMs: 10_000 })).to.equal(200);
      expect(s.seen).to.have.length(4);
      // Node's global agent keeps connections alive: the two short answers share one; the cut-short one is not reused.
      expect(s.connectionsOpened()).to.equal(2);
    } finally {
      await s.close();
    }
  });
});
