// `pve-provisioner seed`: writes a NoCloud seed ISO to a file (SPEC 6, 20),
// the same bytes the provider uploads. Reads no config: the flags decide,
// with the config's defaults (guest agent on, Joliet off).
// Exit 0 written, 2 bad input (the flag and the reason on stderr), 1 failure.
import { rename, rm, writeFile } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createInputFields } from '../job-table/create.schema.js';
import { DNS_LABEL, TEXT_MAX_BYTES, listProblems } from '../job-table/fields.js';
import { buildSeed, type SeedInput } from '../nocloud/seed.js';
import { BadInput, parseFlags, readUtf8File } from './flags.js';
import { readListFiles } from './key-files.js';
import { answerUsage, wantsHelp } from './help.js';

const USAGE =
  'usage: pve-provisioner seed --name NAME [--user-data FILE] [--network-config FILE] [--ssh-key FILE]... [--no-guest-agent] [--joliet] --out FILE\n';

interface SeedCommand {
  input: SeedInput;
  out: string;
}

async function parse(args: string[]): Promise<SeedCommand> {
  const values = parseFlags(args, {
    name: { type: 'string' },
    'user-data': { type: 'string' },
    'network-config': { type: 'string' },
    'ssh-key': { type: 'string', multiple: true },
    'no-guest-agent': { type: 'boolean' },
    joliet: { type: 'boolean' },
    out: { type: 'string' },
  });
  const { name, out } = values;
  if (name === undefined) throw new BadInput('--name is required');
  if (!DNS_LABEL.test(name)) throw new BadInput(`--name "${name}": must be a DNS label: 1 to 63 of a-z, 0-9 and "-", not starting or ending with "-"`);
  if (out === undefined || out === '') throw new BadInput('--out is required (the file to write the ISO to)');
  const input: SeedInput = { name, installGuestAgent: values['no-guest-agent'] !== true, joliet: values.joliet === true };
  if (values['user-data'] !== undefined) input.userData = await readUtf8File('--user-data', values['user-data'], TEXT_MAX_BYTES);
  if (values['network-config'] !== undefined) input.networkConfig = await readUtf8File('--network-config', values['network-config'], TEXT_MAX_BYTES);
  if (values['ssh-key'] !== undefined) input.sshKeys = await sshKeys(values['ssh-key']);
  return { input, out };
}

/** The keys of the --ssh-key files, checked as a create's sshKeys are (SPEC 27); an error names the file and line. */
async function sshKeys(paths: string[]): Promise<string[]> {
  const { rule } = createInputFields.sshKeys;
  const { items, origins } = await readListFiles('--ssh-key', paths, rule.maxItems * rule.itemMaxBytes);
  const problems = listProblems('sshKeys', rule, items);
  if (problems.length > 0) {
    const where = (field: string): string => origins[Number(/\[(\d+)\]$/.exec(field)?.[1] ?? -1)] ?? '--ssh-key';
    throw new BadInput(problems.map((p) => `${where(p.field)} (${p.field}) ${p.message}`).join('\n'));
  }
  return items;
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
