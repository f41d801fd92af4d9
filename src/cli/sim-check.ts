// `worker` and `web` on the default config (proxmox.url "sim") need a
// simulator that runs as a process of its own; `all` starts it itself.
// When none answers, say so once, with what to run, rather than let
// every job fail "Proxmox unreachable" with no hint (SPEC 7, 8); then
// say once when it answers.
import { connect } from 'node:net';
import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';

const RECHECK_MS = 5_000;
const PROBE_TIMEOUT_MS = 1_000;

export interface SimulatorWatch {
  /** Resolves with the first probe's answer. */
  first: Promise<boolean>;
  stop(): void;
}

/** True when something accepts a TCP connection at host:port. */
function listening(host: string, port: number, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export function watchSimulator(config: Config, logger: Logger, command: 'worker' | 'web'): SimulatorWatch | undefined {
  if (config.proxmox.url !== 'sim') return undefined;
  const { host, port } = config.sim;
  const url = `http://${host}:${port}`;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const consequence = command === 'worker' ? 'jobs fail "Proxmox unreachable" until it answers' : 'the workers cannot reach it';
  const first = listening(host, port).then((up) => {
    if (up || stopped) return up;
    logger.warn(
      { proxmox: url },
      `proxmox.url is "sim" but no simulator answers at ${url}: run \`pve-provisioner sim\` as a process of its own (the Procfile's sim: line), or \`npm start\`, which runs everything in one; ${consequence}`,
    );
    const recheck = (): void => {
      timer = setTimeout(() => {
        void listening(host, port).then((now) => {
          if (stopped) return;
          if (now) logger.info({ proxmox: url }, `the simulator at ${url} answers now`);
          else recheck();
        });
      }, RECHECK_MS);
      timer.unref();
    };
    recheck();
    return up;
  });
  return {
    first,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
