// What the commands with flags of their own share: one error for a bad
// command line (the command prints it with its usage, exit 2), flags
// parsed strictly, and a text file named by a flag read as UTF-8.
import { readFile } from 'node:fs/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { describeParseError } from './help.js';

export class BadInput extends Error {}

type FlagOptions = NonNullable<ParseArgsConfig['options']>;

/** The flags' values; no positional arguments. Throws BadInput naming the bad flag. */
export function parseFlags<O extends FlagOptions>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new BadInput(describeParseError(err));
  }
}

/** The UTF-8 text of the file a flag names, at most maxBytes; BadInput says what is wrong with it. */
export async function readUtf8File(flag: string, path: string, maxBytes = Infinity): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new BadInput(`${flag} ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  if (bytes.length > maxBytes) throw new BadInput(`${flag} ${path}: ${bytes.length} bytes, at most ${maxBytes} allowed`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new BadInput(`${flag} ${path}: not UTF-8 text`);
  }
}
