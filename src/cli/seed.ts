// `pve-provisioner seed`: writes a NoCloud seed ISO to a file (SPEC 6, 20),
// the same bytes the provider uploads. Reads no config: the flags decide,
// with the config's defaults (guest agent on, Joliet off).
// Exit 0 written, 2 bad input (the flag and the reason on stderr), 1 failure.
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { DNS_LABEL, TEXT_MAX_BYTES } from '../../jobs/fields.js';
import { buildSeed, type SeedInput } from '../nocloud/seed.js';
import { answerUsage, describeParseError, wantsHelp } from './help.js';

const USAGE =
  'usage: pve-provisioner seed --name NAME [--user-data FILE] [--network-config FILE] [--no-guest-agent] [--joliet] --out FILE\n';

class BadInput extends Error {}

/** A cloud-init file given on the command line: readable, UTF-8, at most 64 KiB (SPEC 1). */
async function readTextFile(flag: string, path: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new BadInput(`${flag} ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  if (bytes.length > TEXT_MAX_BYTES) throw new BadInput(`${flag} ${path}: ${bytes.length} bytes, at most ${TEXT_MAX_BYTES} allowed`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new BadInput(`${flag} ${path}: not UTF-8 text`);
  }
}

interface SeedCommand {
  input: SeedInput;
  out: string;
}

async function parse(args: string[]): Promise<SeedCommand> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        name: { type: 'string' },
        'user-data': { type: 'string' },
        'network-config': { type: 'string' },
        'no-guest-agent': { type: 'boolean' },
        joliet: { type: 'boolean' },
        out: { type: 'string' },
      },
    }));
  } catch (err) {
    throw new BadInput(describeParseError(err));
  }
  const { name, out } = values;
  if (name === undefined) throw new BadInput('--name is required');
  if (!DNS_LABEL.test(name)) throw new BadInput(`--name "${name}": must be a DNS label: 1 to 63 of a-z, 0-9 and "-", not starting or ending with "-"`);
  if (out === undefined || out === '') throw new BadInput('--out is required (the file to write the ISO to)');
  const input: SeedInput = { name, installGuestAgent: values['no-guest-agent'] !== true, joliet: values.joliet === true };
  if (values['user-data'] !== undefined) input.userData = await readTextFile('--user-data', values['user-data']);
  if (values['network-config'] !== undefined) input.networkConfig = await readTextFile('--network-config', values['network-config']);
  return { input, out };
}

/** Writes beside the target, then renames, so a failed write leaves no half image. */
async function writeImage(command: SeedCommand): Promise<number> {
  const seed = buildSeed(command.input);
  const partial = `${command.out}.partial`;
  try {
    await writeFile(partial, '');
  } catch (err) {
    throw new BadInput(`--out ${command.out}: cannot write there (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  try {
    await pipeline(seed.open(), createWriteStream(partial));
    await rename(partial, command.out);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
  return seed.size;
}

export async function run(args: string[]): Promise<number> {
  if (wantsHelp(args)) return answerUsage('seed', USAGE, undefined);
  try {
    const command = await parse(args);
    const size = await writeImage(command);
    process.stdout.write(`wrote ${command.out} (${size} bytes, volume cidata)\n`);
    return 0;
  } catch (err) {
    if (err instanceof BadInput) {
      process.stderr.write(`pve-provisioner seed: ${err.message}\n${USAGE}`);
      return 2;
    }
    process.stderr.write(`pve-provisioner seed: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
