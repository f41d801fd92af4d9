// The ISO upload's body, read as pveproxy reads it (SPEC 23, audit 1):
// PVE::APIServer::AnyEvent::file_upload_multipart, its regular expressions
// applied to the buffer each time data arrives. Phase 1 takes `content`,
// then `checksum-algorithm`, then `checksum`, each the next part; the file
// part must follow a boundary directly, be named `filename` and have a
// `form-data` disposition; phase 2 streams everything up to the closing
// boundary into the file (so a part after the file ends up inside it),
// hashing and counting it (F23), holding its bytes only up to a bound the
// caller gives (a seed the simulated guest boots from, SPEC 29). Any
// failure is a 500 with the Perl text as a plain-text body.
import { createHash } from 'node:crypto';

export interface UploadBody {
  /** `content`, `checksum-algorithm`, `checksum` and `filename`, as pveproxy extracts them. */
  params: Record<string, string>;
  size: number;
  sha256: string;
  /** The file's bytes, when the caller asked to keep files this small. */
  bytes?: Buffer;
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

/** pveproxy's patterns for one boundary. */
class UploadPatterns {
  /** A delimiter line, as a pattern. */
  readonly delim: string;
  /** How much of the buffer phase 2 keeps back: a closing boundary may be starting in it. */
  readonly boundlen: number;
  readonly phase0: RegExp;
  readonly untilData = /^[^]*?(?:\r?\n){2}/;
  readonly fileHead: RegExp;
  readonly fileEnd: RegExp;
  readonly value: RegExp;

  constructor(boundary: string) {
    const b = escapeRegExp(boundary);
    this.delim = `--${b}\\r?\\n`;
    const closeDelim = `--${b}--`;
    this.boundlen = boundary.length + 8;
    this.phase0 = new RegExp(`^[^]*?(${this.delim})`);
    this.fileHead = new RegExp(`^${this.delim}Content-Disposition: ([^]*?); name="([^]*?)"; filename="([^"]+)"`);
    this.fileEnd = new RegExp(`^([^]*?)(?:\\r?\\n)?${closeDelim}[^]*$`);
    this.value = new RegExp(`^([^]*?)(${this.delim})`);
  }

  field(name: string): RegExp {
    return new RegExp(`^${this.delim}[^]*?Content-Disposition: ([^]*?); name="${escapeRegExp(name)}"([^]*?${this.delim})`);
  }
}

/**
 * The parser's state between reads: pveproxy's buffer (`rbuf`), its phase,
 * the fields taken and the file hashed and counted so far.
 */
class UploadReader {
  readonly params: Record<string, string> = {};
  private readonly hash = createHash('sha256');
  private written = 0;
  private phase: Phase = 0;
  private rbuf = '';
  /** Bytes received so far: what pveproxy counts as read plus what its buffer still holds. */
  private received = 0;
  /** The file so far while it is within keepUpTo; undefined once past it. */
  private kept: Buffer[] | undefined = [];

  constructor(
    private readonly patterns: UploadPatterns,
    private readonly size: number,
    private readonly keepUpTo: number,
  ) {}

  get done(): boolean {
    return this.phase === 100;
  }

  /** Data arrived: pveproxy appends it to its buffer and applies each phase's patterns in turn. */
  read(chunk: Buffer): void {
    this.received += chunk.length;
    this.rbuf += chunk.toString('latin1');
    if (this.phase === 0) this.skipPreamble();
    if (this.phase === 1) this.takeFields();
    if (this.phase === 2) this.streamFile();
    if (this.received >= this.size && !this.done) throw perlDie('upload failed', 1370);
  }

  body(): UploadBody {
    const bytes = this.keepUpTo > 0 && this.kept !== undefined ? { bytes: Buffer.concat(this.kept) } : {};
    return { params: this.params, size: this.written, sha256: this.hash.digest('hex'), ...bytes };
  }

  /** Phase 0: keep the boundary, drop anything before it. */
  private skipPreamble(): void {
    const match = this.patterns.phase0.exec(this.rbuf);
    if (match === null) return;
    this.rbuf = this.rbuf.slice(match[0].length - (match[1] ?? '').length);
    this.phase = 1;
  }

  /** Phase 1: the fields, each the next part, then the file part's head. */
  private takeFields(): void {
    this.extractField('content');
    this.extractField('checksum-algorithm');
    this.extractField('checksum');
    const head = this.patterns.fileHead.exec(this.rbuf);
    if (head === null) return;
    assertFormDisposition(head[1] ?? '');
    if (head[2] !== 'filename') throw perlDie(`wrong field name '${head[2] ?? ''}' for file upload, expected 'filename'`, 1325);
    this.phase = 2;
    this.params.filename = (head[3] ?? '').trim();
    this.rbuf = this.rbuf.slice(head[0].length).replace(this.patterns.untilData, '');
  }

  private extractField(name: string): void {
    const match = this.patterns.field(name).exec(this.rbuf);
    if (match === null) return;
    assertFormDisposition(match[1] ?? '');
    this.rbuf = (match[2] ?? '') + this.rbuf.slice(match[0].length);
    this.rbuf = this.rbuf.replace(this.patterns.untilData, '');
    const value = this.patterns.value.exec(this.rbuf);
    if (value === null) return;
    this.params[name] = (value[1] ?? '').trim();
    this.rbuf = this.rbuf.slice((value[1] ?? '').length);
  }

  /** Phase 2: everything up to the closing boundary is the file; the buffer keeps back what may be its start. */
  private streamFile(): void {
    const end = this.patterns.fileEnd.exec(this.rbuf);
    if (end !== null) {
      this.write(end[1] ?? '');
      this.rbuf = '';
      this.phase = 100;
      return;
    }
    const length = this.rbuf.length - this.patterns.boundlen;
    if (length > 0) {
      this.write(this.rbuf.slice(0, length));
      this.rbuf = this.rbuf.slice(length);
    }
  }

  private write(data: string): void {
    if (data.length === 0) return;
    const chunk = Buffer.from(data, 'latin1');
    this.hash.update(chunk);
    this.written += data.length;
    if (this.written > this.keepUpTo) this.kept = undefined;
    else this.kept?.push(chunk);
  }
}

/**
 * Reads the upload body of `size` bytes (the Content-Length). The buffer
 * is a latin1 string, so every byte stays one character and the Perl
 * patterns apply unchanged. A file of at most `keepUpTo` bytes comes back
 * with its bytes.
 */
export async function readUpload(chunks: AsyncIterable<Buffer>, boundary: string, size: number, keepUpTo = 0): Promise<UploadBody> {
  const reader = new UploadReader(new UploadPatterns(boundary), size, keepUpTo);
  for await (const chunk of chunks) {
    if (!reader.done) reader.read(chunk);
  }
  if (!reader.done) throw perlDie('upload failed', 1370);
  return reader.body();
}
