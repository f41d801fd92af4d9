// What every long-running subcommand does the same way: answer --help and
// refuse stray arguments, load the config or say why (exit 2), wait for a
// stop signal.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config/index.js';
import type { Config } from '../config/index.js';
import { answerUsage, describeParseError, PLAIN_USAGE, wantsHelp } from './help.js';

/**
 * For a command that takes no flags: undefined when there are no
 * arguments; else the exit status after printing the usage (--help, 0)
 * or what is wrong and the usage (2).
 */
export function plainArguments(command: keyof typeof PLAIN_USAGE, args: string[]): number | undefined {
  if (args.length === 0) return undefined;
  if (wantsHelp(args)) return answerUsage(command, PLAIN_USAGE[command], undefined);
  try {
    parseArgs({ args, options: {}, strict: true, allowPositionals: false });
  } catch (err) {
    return answerUsage(command, PLAIN_USAGE[command], describeParseError(err));
  }
  return answerUsage(command, PLAIN_USAGE[command], `takes no arguments (got ${args.join(' ')})`);
}

/** Config, or undefined after writing why to stderr. */
export function loadConfigOrExplain(command: string): Config | undefined {
  try {
    return loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`pve-provisioner ${command}: ${err.message}\n`);
    return undefined;
  }
}

export function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
