// A streaming multipart/form-data reader for the ISO upload (F12): fields
// are kept (bounded), the file part is hashed and counted as it passes and
// never held in memory, as pveproxy streams it to /var/tmp (F23).
import { createHash } from 'node:crypto';

export interface MultipartFile {
  field: string;
  filename: string;
  size: number;
  sha256: string;
}

export interface MultipartBody {
  fields: Record<string, string>;
  files: MultipartFile[];
}

export class MultipartError extends Error {
  override readonly name = 'MultipartError';
}

const MAX_FIELD_BYTES = 64 * 1024;
const MAX_HEADER_BYTES = 8 * 1024;

export function boundaryOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined || !/^multipart\/form-data/i.test(contentType)) return undefined;
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

interface PartHeaders {
  name: string;
  filename?: string;
}

function parsePartHeaders(text: string): PartHeaders {
  const disposition = text.split('\r\n').find((line) => /^content-disposition:/i.test(line));
  if (disposition === undefined) throw new MultipartError('a part has no Content-Disposition');
  const name = /;\s*name="([^"]*)"/i.exec(disposition)?.[1];
  if (name === undefined) throw new MultipartError('a part has no name');
  const filename = /;\s*filename="([^"]*)"/i.exec(disposition)?.[1];
  return filename === undefined ? { name } : { name, filename };
}

type Phase = 'preamble' | 'afterBoundary' | 'headers' | 'body' | 'done';

/** Reads a whole multipart body from chunks, one pass, holding at most a boundary's length of file bytes. */
export async function readMultipart(chunks: AsyncIterable<Buffer>, boundary: string): Promise<MultipartBody> {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const result: MultipartBody = { fields: {}, files: [] };
  // A leading CRLF lets the first boundary match the same delimiter as the others.
  let buffer: Buffer = Buffer.from('\r\n');
  const cursor: { phase: Phase } = { phase: 'preamble' };
  let part: PartHeaders | undefined;
  let fieldBytes: Buffer[] = [];
  let fieldSize = 0;
  let hash = createHash('sha256');
  let size = 0;

  const take = (data: Buffer): void => {
    if (data.length === 0 || part === undefined) return;
    if (part.filename !== undefined) {
      hash.update(data);
      size += data.length;
    } else {
      fieldSize += data.length;
      if (fieldSize > MAX_FIELD_BYTES) throw new MultipartError(`field ${part.name} is larger than ${MAX_FIELD_BYTES} bytes`);
      fieldBytes.push(data);
    }
  };
  const finishPart = (): void => {
    if (part === undefined) return;
    if (part.filename !== undefined) result.files.push({ field: part.name, filename: part.filename, size, sha256: hash.digest('hex') });
    else result.fields[part.name] = Buffer.concat(fieldBytes).toString('utf8');
    part = undefined;
  };

  const advance = (): boolean => {
    switch (cursor.phase) {
      case 'preamble': {
        const at = buffer.indexOf(delimiter);
        if (at < 0) {
          buffer = buffer.subarray(Math.max(0, buffer.length - delimiter.length));
          return false;
        }
        buffer = buffer.subarray(at + delimiter.length);
        cursor.phase = 'afterBoundary';
        return true;
      }
      case 'afterBoundary': {
        if (buffer.length < 2) return false;
        const next = buffer.subarray(0, 2).toString('latin1');
        if (next === '--') {
          cursor.phase = 'done';
          return false;
        }
        if (next !== '\r\n') throw new MultipartError('a boundary is not followed by CRLF');
        buffer = buffer.subarray(2);
        cursor.phase = 'headers';
        return true;
      }
      case 'headers': {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) {
          if (buffer.length > MAX_HEADER_BYTES) throw new MultipartError('part headers are too long');
          return false;
        }
        part = parsePartHeaders(buffer.subarray(0, end).toString('utf8'));
        buffer = buffer.subarray(end + 4);
        fieldBytes = [];
        fieldSize = 0;
        hash = createHash('sha256');
        size = 0;
        cursor.phase = 'body';
        return true;
      }
      case 'body': {
        const at = buffer.indexOf(delimiter);
        if (at < 0) {
          const safe = buffer.length - delimiter.length;
          if (safe > 0) {
            take(buffer.subarray(0, safe));
            buffer = buffer.subarray(safe);
          }
          return false;
        }
        take(buffer.subarray(0, at));
        finishPart();
        buffer = buffer.subarray(at + delimiter.length);
        cursor.phase = 'afterBoundary';
        return true;
      }
      case 'done':
        return false;
    }
  };

  for await (const chunk of chunks) {
    if (cursor.phase === 'done') continue;
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    while (advance());
  }
  if (cursor.phase !== 'done') throw new MultipartError('the body ends before the closing boundary');
  return result;
}
