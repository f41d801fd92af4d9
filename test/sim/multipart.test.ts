// The upload body as pveproxy's file_upload_multipart reads it (F12,
// SPEC 23, audit 1): the client's layout is read whole whatever the
// chunking; any other layout fails as pveproxy fails it.
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { MultipartError, parseContentType, readUpload } from '../../src/sim/multipart.js';
import { AUTH, startTestSim, type TestSim } from './sim-helpers.js';

const BOUNDARY = '----pve-sim-boundary-7f3a';
const AT = '/usr/share/perl5/PVE/APIServer/AnyEvent.pm';

const part = (name: string, value: string, disposition = 'form-data'): Buffer =>
  Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}; name="${name}"\r\n\r\n${value}\r\n`);
const filePart = (name = 'filename'): Buffer =>
  Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="seed.iso"\r\nContent-Type: application/octet-stream\r\n\r\n`);
const closing = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

/** The layout of src/proxmox/multipart.ts: content, then the file part, then the closing boundary. */
function body(file: Buffer): Buffer {
  return Buffer.concat([part('content', 'iso'), filePart(), file, closing]);
}

function chunks(data: Buffer, size: number): AsyncIterable<Buffer> {
  const parts: Buffer[] = [];
  for (let at = 0; at < data.length; at += size) parts.push(data.subarray(at, at + size));
  return Readable.from(parts);
}

async function failure(data: Buffer, size = 100_000): Promise<string> {
  try {
    await readUpload(chunks(data, size), BOUNDARY, data.length);
  } catch (err) {
    if (err instanceof MultipartError) return err.text;
    throw err;
  }
  throw new Error('expected the upload to fail');
}

const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

describe("simulator: the upload body, read as pveproxy's file_upload_multipart (audit 1)", () => {
  // File bytes that look like the start of a delimiter, to tempt a wrong split.
  const file = Buffer.concat([Buffer.from(`\r\n--${BOUNDARY.slice(0, 10)}`), Buffer.alloc(5000, 0x5a), Buffer.from('\r\n--')]);

  // The client sends the multipart head as one buffer (src/proxmox/multipart.ts), then the file.
  const head = Buffer.concat([part('content', 'iso'), filePart()]);
  for (const size of [1, 7, 64, 100_000]) {
    it(`reads the client's body whole, its file in chunks of ${size} bytes`, async () => {
      const rest = Buffer.concat([file, closing]);
      const all: Buffer[] = [head];
      for (let at = 0; at < rest.length; at += size) all.push(rest.subarray(at, at + size));
      expect(await readUpload(Readable.from(all), BOUNDARY, head.length + rest.length)).to.deep.equal({
        params: { content: 'iso', filename: 'seed.iso' },
        size: file.length,
        sha256: sha(file),
      });
    });
  }

  it('gives back the file bytes up to the bound asked for, and none past it (a seed the guest boots from, SPEC 29)', async () => {
    // The client's layout: the head in one buffer, then the file in chunks.
    const read = (keepUpTo: number): Promise<{ bytes?: Buffer }> =>
      readUpload(Readable.from([head, file.subarray(0, 1000), file.subarray(1000), closing]), BOUNDARY, head.length + file.length + closing.length, keepUpTo);
    expect((await read(file.length)).bytes?.equals(file)).to.equal(true);
    expect((await read(file.length - 1)).bytes).to.equal(undefined);
  });

  it("leaks a file part's header split across reads into the file, as pveproxy's remove_until_data does", async () => {
    const data = body(file);
    const read = await readUpload(chunks(data, 7), BOUNDARY, data.length);
    expect(read.size).to.be.greaterThan(file.length);
  });

  it('takes checksum-algorithm and checksum after content, before the file', async () => {
    const data = Buffer.concat([part('content', 'iso'), part('checksum-algorithm', 'sha256'), part('checksum', 'abc'), filePart(), file, closing]);
    expect((await readUpload(chunks(data, 64), BOUNDARY, data.length)).params).to.deep.equal({ content: 'iso', 'checksum-algorithm': 'sha256', checksum: 'abc', filename: 'seed.iso' });
  });

  it('puts a part that follows the file inside the file', async () => {
    const extra = part('checksum', 'abc');
    const data = Buffer.concat([part('content', 'iso'), filePart(), file, Buffer.from('\r\n'), extra.subarray(0, extra.length - 2), closing]);
    const read = await readUpload(chunks(data, 100_000), BOUNDARY, data.length);
    expect(read.size).to.equal(file.length + extra.length);
  });

  it('refuses a file part not named filename, with the Perl text', async () => {
    expect(await failure(Buffer.concat([part('content', 'iso'), filePart('file'), file, closing]))).to.equal(
      `wrong field name 'file' for file upload, expected 'filename' at ${AT} line 1325.\n`,
    );
  });

  it('refuses a disposition other than form-data', async () => {
    expect(await failure(Buffer.concat([part('content', 'iso', 'attachment'), filePart(), file, closing]))).to.equal(
      "wrong Content-Disposition 'attachment' in multipart, expected 'form-data'\n",
    );
  });

  it('fails a body with another field before the file, or one cut before its closing boundary', async () => {
    // The lazy name="(.*?)" runs on into the next part, as Perl's does.
    expect(await failure(Buffer.concat([part('content', 'iso'), part('note', 'x'), filePart(), file, closing]))).to.match(/^wrong field name 'note"\r\n/);
    expect(await failure(body(file).subarray(0, 200), 50)).to.equal(`upload failed at ${AT} line 1370.\n`);
  });

  it('takes the type and boundary as parse_content_type does: no unquoting, the type exact', () => {
    expect(parseContentType(`multipart/form-data; boundary=${BOUNDARY}`)).to.deep.equal({ type: 'multipart/form-data', boundary: BOUNDARY });
    expect(parseContentType(`multipart/form-data; boundary="${BOUNDARY}"`)).to.deep.equal({ type: 'multipart/form-data', boundary: `"${BOUNDARY}"` });
    expect(parseContentType('Multipart/Form-Data; boundary=x').type).to.equal('Multipart/Form-Data');
  });
});

describe('simulator: the upload request over HTTP (audit 1)', () => {
  let sim: TestSim;
  beforeEach(async () => {
    sim = await startTestSim();
  });
  afterEach(async () => {
    await sim.close();
  });

  function post(data: Buffer, headers: Record<string, string>, chunked = false, storage = 'proxy-seeds'): Promise<{ status: number; reason: string; body: string; contentType?: string }> {
    return new Promise((resolve, reject) => {
      const url = new URL(`${sim.url}/api2/json/nodes/pv1-1/storage/${storage}/upload`);
      const req = request(url, { method: 'POST', headers: { ...AUTH, ...headers, ...(chunked ? {} : { 'Content-Length': String(data.length) }) } }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, reason: res.statusMessage ?? '', body: Buffer.concat(parts).toString('utf8'), contentType: res.headers['content-type'] }));
      });
      req.on('error', reject);
      if (chunked) req.write(data);
      req.end(chunked ? undefined : data);
    });
  }
  const multipart = { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` };

  it("answers a parser failure 500 with the text as reason and a plain body", async () => {
    const answer = await post(Buffer.concat([part('content', 'iso'), filePart('file'), Buffer.from('x'), closing]), multipart);
    expect(answer).to.deep.include({ status: 500, reason: `wrong field name 'file' for file upload, expected 'filename' at ${AT} line 1325.`, contentType: undefined });
    expect(answer.body).to.equal(`wrong field name 'file' for file upload, expected 'filename' at ${AT} line 1325.\n`);
  });

  it('never parses a chunked body (no Content-Length): the API sees no content and no file', async () => {
    const answer = await post(body(Buffer.alloc(10, 1)), { ...multipart, 'Transfer-Encoding': 'chunked' }, true);
    expect(answer.status).to.equal(400);
    expect(Object.keys((JSON.parse(answer.body) as { errors: Record<string, string> }).errors).sort()).to.deep.equal(['content', 'filename']);
  });

  it('gives no answer to a Content-Type other than multipart/form-data with a boundary', async () => {
    let failed: unknown;
    await post(body(Buffer.alloc(10, 1)), { 'Content-Type': 'multipart/mixed; boundary=x' }).catch((err: unknown) => (failed = err));
    expect(failed).to.be.instanceOf(Error);
  });

  it('checks storage type, extension, then content, in Status.pm order and words', async () => {
    const seed = (name: string) => Buffer.concat([part('content', 'iso'), Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="filename"; filename="${name}"\r\n\r\n`), Buffer.from('x'), closing]);
    const to = async (storage: string, name: string) => {
      const a = await post(seed(name), multipart, false, storage);
      return [a.status, a.body === '' ? a.reason : ((JSON.parse(a.body) as { errors?: unknown; message: string }).errors ?? a.reason)];
    };
    expect(await to('local-lvm', 'seed.txt')).to.deep.equal([500, "can't upload to storage type 'lvmthin'"]);
    expect(await to('vm-shared', 'seed.txt')).to.deep.equal([400, { filename: 'wrong file extension' }]);
    expect(await to('vm-shared', 'seed.iso')).to.deep.equal([500, "storage 'vm-shared' does not support 'iso' content"]);
  });
});
