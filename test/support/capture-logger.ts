// A real logger (src/log.ts: redaction included) whose lines land in an
// array, parsed, for tests that assert what was logged.
import { createLogger, type Logger } from '../../src/log.js';

export function captureLogger(): { logger: Logger; records: Record<string, unknown>[] } {
  const records: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: 'debug',
    pretty: false,
    destination: { write: (line: string) => void records.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, records };
}
