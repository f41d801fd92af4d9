// SPEC 18, F12: the seed upload is a multipart body (`content=iso`, then
// the file part `filename`) streamed with an exact Content-Length; the
// client never holds the whole file.
import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { classOf } from '../../src/errors.js';
import type { UploadSource } from '../../src/proxmox/api.js';
import { loadFixture } from '../support/fixtures.js';
import { sendFixture, startRawServer } from '../support/replay-server.js';
import type { RawServer } from '../support/replay-server.js';
import { workspace } from './support.js';
import type { Workspace } from './support.js';
import { rejection } from '../support/rejection.js';

const FIRST_CHUNK = 256 * 1024;
const SIZE = 4 * 1024 * 1024 + 17;

function fileBytes(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >> 9)) & 0xff;
  return bytes;
}

interface Part {
  headers: string;
  content: Buffer;
}

function parseMultipart(body: Buffer, contentType: string): Part[] {
  const boundary = /boundary=(.+)$/.exec(contentType)?.[1];
  if (boundary === undefined) throw new Error(`no boundary in ${contentType}`);
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Part[] = [];
  let at = body.indexOf(delimiter);
  expect(at).to.equal(0);
  for (;;) {
    const after = at + delimiter.length;
    if (body.subarray(after, after + 4).toString() === '--\r\n') break;
    const headersEnd = body.indexOf('\r\n\r\n', after);
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headersEnd);
    expect(next).to.be.greaterThan(0);
    parts.push({ headers: body.subarray(after + 2, headersEnd).toString(), content: body.subarray(headersEnd + 4, next) });
    at = next + 2;
  }
  expect(body.length).to.equal(at + delimiter.length + 4);
  return parts;
}

/**
 * A source that hands over its first chunk, then stalls until the server
 * has received file bytes: a client that gathered the whole file before
 * sending would wait for ever.
 */
function stallingSource(bytes: Buffer, serverSawFileBytes: Promise<void>): UploadSource & { opened: number } {
  const source = {
    size: bytes.length,
    opened: 0,
    open: () => {
      source.opened++;
      async function* chunks(): AsyncGenerator<Buffer> {
        yield bytes.subarray(0, FIRST_CHUNK);
        await serverSawFileBytes;
        for (let at = FIRST_CHUNK; at < bytes.length; at += 64 * 1024) yield bytes.subarray(at, Math.min(at + 64 * 1024, bytes.length));
      }
      return Readable.from(chunks());
    },
  };
  return source;
}

interface Received {
  headers: IncomingMessage['headers'];
  rawPath: string;
  body: Buffer;
}

describe('the seed upload streams (SPEC 18, F12)', () => {
  let ws: Workspace;
  let server: RawServer | undefined;
  beforeEach(() => {
    ws = workspace();
  });
  afterEach(async () => {
    await server?.close();
    ws.remove();
  });

  it('sends content=iso, then the file part filename, with an exact Content-Length, while the source is still producing', async () => {
    const bytes = fileBytes(SIZE);
    let sawFileBytes!: () => void;
    const serverSawFileBytes = new Promise<void>((resolve) => {
      sawFileBytes = resolve;
    });
    let received!: (r: Received) => void;
    const receivedAll = new Promise<Received>((resolve) => {
      received = resolve;
    });
    server = await startRawServer((req, res) => {
      const chunks: Buffer[] = [];
      let length = 0;
      req.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        length += chunk.length;
        // Past the multipart head (well under 1 KiB), so file bytes have arrived.
        if (length > 1024) sawFileBytes();
      });
      req.on('end', () => {
        received({ headers: req.headers, rawPath: req.url ?? '', body: Buffer.concat(chunks) });
        sendFixture(res, loadFixture('upload_response'));
      });
    });
    const source = stallingSource(bytes, serverSawFileBytes);
    const stalled = new Promise<never>((_resolve, reject) => {
      setTimeout(() => reject(new Error('the upload stalled: the client waited for the whole file before sending')), 10_000).unref();
    });
    const upid = await Promise.race([ws.client(server.url).upload('pv1-1', 'proxy-seeds', 'proxy-reconaaaaaaaaaaa-seed.iso', source), stalled]);
    expect(upid).to.match(/:imgcopy:/);
    expect(source.opened).to.equal(1);

    const got = await receivedAll;
    expect(got.rawPath).to.equal('/api2/json/nodes/pv1-1/storage/proxy-seeds/upload');
    expect(got.headers['transfer-encoding']).to.equal(undefined);
    expect(Number(got.headers['content-length'])).to.equal(got.body.length);
    const parts = parseMultipart(got.body, String(got.headers['content-type']));
    expect(parts).to.have.length(2);
    expect(parts[0]?.headers).to.equal('Content-Disposition: form-data; name="content"');
    expect(parts[0]?.content.toString()).to.equal('iso');
    expect(parts[1]?.headers).to.contain('Content-Disposition: form-data; name="filename"; filename="proxy-reconaaaaaaaaaaa-seed.iso"');
    expect(parts[1]?.content.equals(bytes)).to.equal(true);
  });

  it('a source shorter than its declared size fails the upload as Transient', async () => {
    server = await startRawServer((req, res) => {
      req.resume();
      req.on('end', () => sendFixture(res, loadFixture('upload_response')));
    });
    const short = { size: 1000, open: () => Readable.from([Buffer.alloc(10)]) };
    const err = await rejection(ws.client(server.url).upload('pv1-1', 'proxy-seeds', 'x-seed.iso', short));
    expect(classOf(err)).to.equal('Transient');
  });

  it('a refused upload (F12: wrong extension) is the 400 with its errors map', async () => {
    server = await startRawServer((req, res) => {
      req.resume();
      req.on('end', () => sendFixture(res, loadFixture('err_upload_wrong_extension')));
    });
    const source = { size: 3, open: () => Readable.from([Buffer.from('abc')]) };
    const err = await rejection(ws.client(server.url).upload('pv1-1', 'proxy-seeds', 'x-seed.img', source));
    expect(err).to.have.property('errors').that.deep.equals({ filename: 'wrong file extension' });
  });
});
