// What every long-running subcommand does the same way: refuse stray
// arguments, load the config or say why (exit 2), wait for a stop signal.
import { ConfigError, loadConfig } from '../config.js';
import type { Config } from '../config.js';

/** True after writing why to stderr when a command that takes none got arguments. */
export function refusedArguments(command: string, args: string[]): boolean {
  if (args.length === 0) return false;
  process.stderr.write(`pve-provisioner ${command}: takes no arguments (got ${args.join(' ')}); configure it with environment variables or PVE_PROVISIONER_CONFIG\n`);
  return true;
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
