// A real logger (src/log.ts: redaction included) whose lines land in an
// array, parsed, for tests that assert what was logged; at debug unless
// a test asks for the level it wants to see (info: the default log).
import { createLogger, type Logger } from '../../src/log.js';

export function captureLogger(level = 'debug'): { logger: Logger; records: Record<string, unknown>[] } {
  const records: Record<string, unknown>[] = [];
  const logger = createLogger({
    level,
    pretty: false,
    destination: { write: (line: string) => void records.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, records };
}
