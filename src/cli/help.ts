// --help and bad flags, the same for every subcommand (SPEC 6, 27):
// `--help` or `-h` prints the command's usage on stdout and exits 0; an
// unknown flag, a flag without its value or a stray argument is one line
// on stderr naming it, then the usage, exit 2 -- never Node's parseArgs
// text, which tells the user about '--' and positionals.

/** True when the arguments (before a `--`) ask for help. */
export function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

/** One line saying what is wrong with the arguments, from an error of node:util parseArgs. */
export function describeParseError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: string } | undefined)?.code ?? '';
  const quoted = /'([^']+)'/.exec(message)?.[1];
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown flag ${quoted ?? message}`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument "${quoted ?? message}"`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const flag = (quoted ?? '').split(' ')[0] ?? '';
      return /takes? no|does not take/.test(message) ? `${flag} takes no value` : `${flag} needs a value`;
    }
    default:
      return message;
  }
}

export interface UsageIo {
  stdout?: { write(text: string): unknown };
  stderr?: { write(text: string): unknown };
}

/** Writes the usage for --help (0) or the problem and the usage (2). */
export function answerUsage(command: string, usage: string, problem: string | undefined, io: UsageIo = {}): number {
  if (problem === undefined) {
    (io.stdout ?? process.stdout).write(usage);
    return 0;
  }
  (io.stderr ?? process.stderr).write(`pve-provisioner ${command}: ${problem}\n${usage}`);
  return 2;
}

const CONFIGURED = '  Configured by environment variables and PVE_PROVISIONER_CONFIG (see README.md, "Configuration").\n';

/** Usage of the commands that take no flags of their own. */
export const PLAIN_USAGE = {
  worker: `usage: pve-provisioner worker\n  Runs the job workers against proxmox.url (the simulator on sim.host:sim.port when it is "sim").\n${CONFIGURED}`,
  web: `usage: pve-provisioner web\n  Runs the HTTP API (/v1), Bull Board (/admin/queues), /healthz, /readyz and /metrics.\n${CONFIGURED}`,
  health: `usage: pve-provisioner health\n  Prints the last health result of every node as JSON; exit 1 when a node is not ok.\n${CONFIGURED}`,
} as const;
