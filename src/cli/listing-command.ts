// What a command that lists one thing through the producer library does
// the same way (`pools`, `clusters`): --help, no flag but --json, the
// config, the client; a table, or with --json one JSON document. Exit 0,
// 2 on bad input, 1 when Redis is not reachable.
import { parseArgs } from 'node:util';
import { createProvisionerClient, type ProvisionerClient } from '../client.js';
import { cliClientOptions } from './client-options.js';
import { loadConfigOrExplain } from './common.js';
import { answerUsage, describeParseError, wantsHelp } from './help.js';
import { jsonDocument } from './terminal-text.js';

export interface Listing {
  /** The JSON document of --json, as the HTTP API answers. */
  document: Record<string, unknown>;
  /** The table (or the line saying there is nothing to list). */
  text: string;
}

export async function runListing(command: string, usage: string, args: string[], list: (client: ProvisionerClient) => Promise<Listing>): Promise<number> {
  if (wantsHelp(args)) return answerUsage(command, usage, undefined);
  let values: { json?: boolean };
  try {
    values = parseArgs({ args, options: { json: { type: 'boolean' } }, strict: true, allowPositionals: false }).values;
  } catch (err) {
    return answerUsage(command, usage, describeParseError(err));
  }
  const config = loadConfigOrExplain(command);
  if (config === undefined) return 2;
  const client = createProvisionerClient(cliClientOptions(config));
  try {
    const listed = await list(client);
    process.stdout.write(values.json ? jsonDocument(listed.document) : listed.text);
    return 0;
  } finally {
    await client.close();
  }
}
