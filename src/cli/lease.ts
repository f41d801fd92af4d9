// `pve-provisioner lease NAME --ttl N | --expires-at T [--shorten] [--json]`
// (SPEC 31): renews a name's lease through the producer library, as PUT
// /v1/vms/{name}/lease does, and prints the new expiry. Exit 0; 1 when no
// present VM has the name, or the renewal would shorten the lease without
// --shorten (why on stderr); 2 on bad input (the flag named).
import { parseArgs } from 'node:util';
import { createUncheckedProvisionerClient, LeaseExpiredError, LeaseShortenError, NameNotFoundError, ValidationError } from '../client.js';
import { cliClientOptions } from './client-options.js';
import { loadConfigOrExplain } from './common.js';
import { answerUsage, describeParseError, wantsHelp } from './help.js';
import { jsonDocument } from './terminal-text.js';

const USAGE = [
  'usage: pve-provisioner lease NAME --ttl SECONDS | --expires-at TIME [--shorten] [--json]',
  "  Renews the name's lease: its VM ends SECONDS from now, or at TIME (RFC 3339, e.g. 2030-01-02T03:04:05Z),",
  '  at most leases.maxSeconds from now. A name created without a lease gets one.',
  '  --shorten  allow an expiry earlier than the present one (refused without it);',
  '  --json     the new lease as one JSON document instead of a line.',
  '',
].join('\n');

const OPTIONS = { ttl: { type: 'string' }, 'expires-at': { type: 'string' }, shorten: { type: 'boolean' }, json: { type: 'boolean' } } as const;

const FLAG_OF: Record<string, string> = { ttlSeconds: '--ttl', expiresAt: '--expires-at', name: 'NAME' };

type Values = { ttl?: string; 'expires-at'?: string; shorten?: boolean; json?: boolean };

/** The renewal the flags ask for, checked by the library (neither or both is its error too); a --ttl that is not digits goes on as text, so its check names it. */
function renewalOf(values: Values): Record<string, unknown> {
  const renewal: Record<string, unknown> = {};
  if (values.ttl !== undefined) renewal.ttlSeconds = /^\d+$/.test(values.ttl) ? Number(values.ttl) : values.ttl;
  if (values['expires-at'] !== undefined) renewal.expiresAt = values['expires-at'];
  return renewal;
}

export async function run(args: string[]): Promise<number> {
  if (wantsHelp(args)) return answerUsage('lease', USAGE, undefined);
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: true });
  } catch (err) {
    return answerUsage('lease', USAGE, describeParseError(err));
  }
  const [name, ...extra] = parsed.positionals;
  if (name === undefined) return answerUsage('lease', USAGE, 'NAME is required');
  if (extra.length > 0) return answerUsage('lease', USAGE, `unexpected argument "${extra.join(' ')}"`);
  const config = loadConfigOrExplain('lease');
  if (config === undefined) return 2;

  const client = createUncheckedProvisionerClient(cliClientOptions(config));
  try {
    const lease = await client.renewLease(name, renewalOf(parsed.values), { shorten: parsed.values.shorten === true });
    process.stdout.write(parsed.values.json ? jsonDocument(lease) : `${lease.name} expires at ${lease.expiresAt} (then ${lease.onExpiry}; lease version ${lease.version})\n`);
    return 0;
  } catch (err) {
    if (err instanceof ValidationError) return answerUsage('lease', USAGE, err.fields.map((f) => `${FLAG_OF[f.field] ?? f.field} ${f.message}`).join('; '));
    if (err instanceof NameNotFoundError || err instanceof LeaseShortenError || err instanceof LeaseExpiredError) {
      process.stderr.write(`pve-provisioner lease: ${err instanceof LeaseShortenError ? err.message.replace('send shorten: true', 'give --shorten') : err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await client.close();
  }
}
