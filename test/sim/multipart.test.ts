// The upload's multipart reader (F12): the same fields and file digest
// whatever the chunking, so a boundary split across reads is never missed.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { MultipartError, boundaryOf, readMultipart } from '../../src/sim/multipart.js';

const BOUNDARY = '----pve-sim-boundary-7f3a';

function body(file: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="content"\r\n\r\niso\r\n`),
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="filename"; filename="seed.iso"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

function chunks(data: Buffer, size: number): AsyncIterable<Buffer> {
  const parts: Buffer[] = [];
  for (let at = 0; at < data.length; at += size) parts.push(data.subarray(at, at + size));
  return Readable.from(parts);
}

describe('simulator: multipart upload reader (F12)', () => {
  // File bytes that look like the start of a delimiter, to tempt a wrong split.
  const file = Buffer.concat([Buffer.from(`\r\n--${BOUNDARY.slice(0, 10)}`), Buffer.alloc(5000, 0x5a), Buffer.from('\r\n--')]);

  for (const size of [1, 7, 64, 100_000]) {
    it(`reads the fields and the file whole in chunks of ${size} bytes`, async () => {
      const result = await readMultipart(chunks(body(file), size), BOUNDARY);
      expect(result.fields).to.deep.equal({ content: 'iso' });
      expect(result.files).to.deep.equal([
        { field: 'filename', filename: 'seed.iso', size: file.length, sha256: createHash('sha256').update(file).digest('hex') },
      ]);
    });
  }

  it('refuses a body cut before its closing boundary', async () => {
    const cut = body(file).subarray(0, 200);
    let failure: unknown;
    await readMultipart(chunks(cut, 50), BOUNDARY).catch((err: unknown) => (failure = err));
    expect(failure).to.be.instanceOf(MultipartError);
  });

  it('takes the boundary from the Content-Type, quoted or not', () => {
    expect(boundaryOf(`multipart/form-data; boundary=${BOUNDARY}`)).to.equal(BOUNDARY);
    expect(boundaryOf(`multipart/form-data; boundary="${BOUNDARY}"`)).to.equal(BOUNDARY);
    expect(boundaryOf('application/x-www-form-urlencoded')).to.equal(undefined);
  });
});
