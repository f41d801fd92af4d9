// `pve-provisioner sim [--port N] [--vms N] [--tls-cert F --tls-key F]`:
// the Proxmox VE simulator alone (SPEC 6, 8), on the `sim` config section.
// It accepts the token in proxmox.tokenFile (created when missing) and
// prints the URL it listens on and each node's own (SPEC 28), never the
// token. Exit 2 on bad flags.
import { loadConfig } from '../config/index.js';
import { createLogger } from '../log.js';
import { startSimulator } from '../sim/index.js';
import { keepStateIn } from '../sim/state-file.js';
import { ensureSimToken } from '../sim/token-file.js';
import { waitForSignal } from './common.js';
import { BadInput, parseFlags } from './flags.js';
import { answerUsage, wantsHelp } from './help.js';

const USAGE = 'usage: pve-provisioner sim [--port N] [--vms N] [--tls-cert FILE --tls-key FILE]\n';

interface SimFlags {
  port?: number;
  vms?: number;
  tlsCert?: string;
  tlsKey?: string;
}

function wholeNumber(flag: string, text: string | undefined, max: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) > max) throw new BadInput(`${flag} "${text}": must be a whole number from 0 to ${max}`);
  return Number(text);
}

export function parseSimFlags(args: string[]): SimFlags {
  const values = parseFlags(args, { port: { type: 'string' }, vms: { type: 'string' }, 'tls-cert': { type: 'string' }, 'tls-key': { type: 'string' } });
  const cert = values['tls-cert'];
  const key = values['tls-key'];
  if ((cert === undefined) !== (key === undefined)) throw new BadInput('--tls-cert and --tls-key go together: give both or neither');
  return {
    port: wholeNumber('--port', values.port, 65535),
    vms: wholeNumber('--vms', values.vms, 1_000_000),
    tlsCert: cert,
    tlsKey: key,
  };
}

/** One line per node: the URL whose calls enter that node's pveproxy (SPEC 28). */
export function nodeUrlLines(nodeUrls: Record<string, string>, mainUrl: string): string {
  return Object.entries(nodeUrls)
    .map(([node, url]) => `  node ${node}: ${url}${url === mainUrl ? ' (the URL above)' : ''}; calls sent there enter ${node}'s pveproxy\n`)
    .join('');
}

export async function run(args: string[]): Promise<number> {
  if (wantsHelp(args)) return answerUsage('sim', USAGE, undefined);
  let flags: SimFlags;
  try {
    flags = parseSimFlags(args);
  } catch (err) {
    if (!(err instanceof BadInput)) throw err;
    return answerUsage('sim', USAGE, err.message);
  }
  const config = loadConfig();
  const { token, created } = await ensureSimToken(config.proxmox.tokenFile);
  if (created) process.stdout.write(`created ${config.proxmox.tokenFile} with a random API token (mode 0600)\n`);
  const started = await startSimulator({
    ...config.sim,
    port: flags.port ?? config.sim.port,
    vms: flags.vms ?? config.sim.vms,
    tlsCert: flags.tlsCert ?? config.sim.tlsCert,
    tlsKey: flags.tlsKey ?? config.sim.tlsKey,
    tokens: [token],
    logger: createLogger({ level: config.log.level, pretty: config.log.pretty, name: 'pve-provisioner-sim' }),
  });
  const running = config.sim.stateFile === '' ? started : await keepStateIn(started, config.sim.stateFile);
  process.stdout.write(
    `Proxmox VE simulator listening on ${running.url} (API ${running.url}/api2/json, nodes ${config.sim.nodes.join(', ')}); ` +
      `it accepts the token in ${config.proxmox.tokenFile}\n${nodeUrlLines(running.nodeUrls, running.url)}`,
  );
  await waitForSignal();
  await running.close();
  return 0;
}
