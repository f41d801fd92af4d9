// SIGTERM and SIGINT for a worker process (SPEC 1): stop taking jobs, let
// running ones finish within the grace period, then exit. A job cut off
// at the end of the grace period is recovered as stalled by another
// worker and resumes. A second signal exits at once.
import type { Logger } from '../log.js';
import type { WorkerService } from './service.js';

export interface ShutdownOptions {
  graceMs: number;
  /** process.exit by default; tests pass their own. */
  exit?: (code: number) => void;
  /** Also closed after the workers (the provider's HTTP agents, a simulator). */
  alsoClose?: () => Promise<void>;
}

export function handleShutdownSignals(service: WorkerService, logger: Logger, options: ShutdownOptions): void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      exit(1);
      return;
    }
    stopping = true;
    logger.info({ signal, graceMs: options.graceMs }, 'stopping: no new jobs, waiting for running ones');
    service
      .close(options.graceMs)
      .then(async ({ forced }) => {
        await options.alsoClose?.();
        logger.info({ forced }, forced ? 'stopped; jobs cut off will resume elsewhere' : 'stopped after running jobs finished');
        exit(0);
      })
      .catch((err: unknown) => {
        logger.error({ err }, 'error while stopping');
        exit(1);
      });
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
