// The ISO upload's body, read as pveproxy reads it (SPEC 23, audit 1):
// PVE::APIServer::AnyEvent::file_upload_multipart, its regular expressions
// applied to the buffer each time data arrives. Phase 1 takes `content`,
// then `checksum-algorithm`, then `checksum`, each the next part; the file
// part must follow a boundary directly, be named `filename` and have a
// `form-data` disposition; phase 2 streams everything up to the closing
// boundary into the file (so a part after the file ends up inside it),
// hashing and counting it, never holding it (F23). Any failure is a 500
// with the Perl text as a plain-text body.
import { createHash } from 'node:crypto';

export interface UploadBody {
  /** `content`, `checksum-algorithm`, `checksum` and `filename`, as pveproxy extracts them. */
  params: Record<string, string>;
  size: number;
  sha256: string;
}

/** A failure of pveproxy's upload parser: `500` with `text` as reason (first line) and plain body. */
export class MultipartError extends Error {
  override readonly name = 'MultipartError';
  constructor(readonly text: string) {
    super(text.trimEnd());
  }
}

const SOURCE = '/usr/share/perl5/PVE/APIServer/AnyEvent.pm';

/** A Perl `die` without a trailing newline gets the file and line appended. */
function perlDie(text: string, line: number): MultipartError {
  return new MultipartError(`${text} at ${SOURCE} line ${line}.\n`);
}

/** parse_content_type: the type and the boundary parameter, as pveproxy splits them (no unquoting). */
export function parseContentType(header: string): { type: string; boundary?: string } {
  const [type = '', ...params] = header.split(/\s*[;,]\s*/);
  for (const param of params) {
    const match = /^\s*boundary\s*=\s*(\S+?)\s*$/.exec(param);
    if (match !== null) return { type, boundary: match[1] };
  }
  return { type };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function assertFormDisposition(value: string): void {
  if (value !== 'form-data') throw new MultipartError(`wrong Content-Disposition '${value}' in multipart, expected 'form-data'\n`);
}

type Phase = 0 | 1 | 2 | 100;

/**
 * Reads the upload body of `size` bytes (the Content-Length). The buffer
 * is a latin1 string, so every byte stays one character and the Perl
 * patterns apply unchanged.
 */
export async function readUpload(chunks: AsyncIterable<Buffer>, boundary: string, size: number): Promise<UploadBody> {
  const b = escapeRegExp(boundary);
  const delim = `--${b}\\r?\\n`;
  const closeDelim = `--${b}--`;
  const boundlen = boundary.length + 8;
  const phase0 = new RegExp(`^[^]*?(${delim})`);
  const untilData = /^[^]*?(?:\r?\n){2}/;
  const fileHead = new RegExp(`^${delim}Content-Disposition: ([^]*?); name="([^]*?)"; filename="([^"]+)"`);
  const fileEnd = new RegExp(`^([^]*?)(?:\\r?\\n)?${closeDelim}[^]*$`);
  const params: Record<string, string> = {};
  const hash = createHash('sha256');
  let written = 0;
  const cursor: { phase: Phase } = { phase: 0 };
  let rbuf = '';
  /** Bytes received so far: what pveproxy counts as read plus what its buffer still holds. */
  let received = 0;

  const extractField = (name: string): void => {
    const field = new RegExp(`^${delim}[^]*?Content-Disposition: ([^]*?); name="${escapeRegExp(name)}"([^]*?${delim})`);
    const match = field.exec(rbuf);
    if (match === null) return;
    assertFormDisposition(match[1] ?? '');
    rbuf = (match[2] ?? '') + rbuf.slice(match[0].length);
    rbuf = rbuf.replace(untilData, '');
    const value = new RegExp(`^([^]*?)(${delim})`).exec(rbuf);
    if (value === null) return;
    params[name] = (value[1] ?? '').trim();
    rbuf = rbuf.slice((value[1] ?? '').length);
  };
  const write = (data: string): void => {
    if (data.length === 0) return;
    hash.update(Buffer.from(data, 'latin1'));
    written += data.length;
  };

  const onRead = (): void => {
    if (cursor.phase === 0) {
      // Keep the boundary, drop anything before it.
      const match = phase0.exec(rbuf);
      if (match !== null) {
        rbuf = rbuf.slice(match[0].length - (match[1] ?? '').length);
        cursor.phase = 1;
      }
    }
    if (cursor.phase === 1) {
      extractField('content');
      extractField('checksum-algorithm');
      extractField('checksum');
      const head = fileHead.exec(rbuf);
      if (head !== null) {
        assertFormDisposition(head[1] ?? '');
        if (head[2] !== 'filename') throw perlDie(`wrong field name '${head[2] ?? ''}' for file upload, expected 'filename'`, 1325);
        cursor.phase = 2;
        params.filename = (head[3] ?? '').trim();
        rbuf = rbuf.slice(head[0].length).replace(untilData, '');
      }
    }
    if (cursor.phase === 2) {
      const end = fileEnd.exec(rbuf);
      if (end !== null) {
        write(end[1] ?? '');
        rbuf = '';
        cursor.phase = 100;
      } else {
        const length = rbuf.length - boundlen;
        if (length > 0) {
          write(rbuf.slice(0, length));
          rbuf = rbuf.slice(length);
        }
      }
    }
    if (received >= size && cursor.phase !== 100) throw perlDie('upload failed', 1370);
  };

  for await (const chunk of chunks) {
    if (cursor.phase === 100) continue;
    received += chunk.length;
    rbuf += chunk.toString('latin1');
    onRead();
  }
  if (cursor.phase !== 100) throw perlDie('upload failed', 1370);
  return { params, size: written, sha256: hash.digest('hex') };
}
