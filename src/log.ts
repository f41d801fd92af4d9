// pino logging (SPEC 9): JSON lines by default, pretty when configured.
// Every line passes through redactSecrets before it is written, so a
// secret that slips into a message, an error or a header never leaves.
import { pino } from 'pino';
import type { Logger, DestinationStream } from 'pino';
import { redactSecrets } from './secrets/redact.js';

export type { Logger } from 'pino';

export interface LogOptions {
  level: string;
  pretty: boolean;
  name?: string;
  /** Where lines go; stdout by default. Tests pass a sink. */
  destination?: DestinationStream;
}

const REDACT_PATHS = [
  'headers.authorization',
  'headers.Authorization',
  'req.headers.authorization',
  'request.headers.authorization',
  '*.headers.authorization',
  'token',
  'password',
  '*.token',
  '*.password',
];

export function createLogger(options: LogOptions): Logger {
  const base = {
    level: options.level,
    name: options.name ?? 'pve-provisioner',
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    hooks: {
      streamWrite: (line: string): string => redactSecrets(line),
    },
  };
  if (options.destination) return pino(base, options.destination);
  if (options.pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true } } });
  }
  return pino(base);
}

/** A logger that writes nothing, for code paths and tests that need one. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
