// `verify --record DIR` (SPEC 33): every request and answer of the run as
// a fixture file, in order, and an index of the run (recording-index.ts).
// Never a header of the request (the token is one), never an upload's
// bytes (the seed holds user-data): fixture-file.ts drops what could
// carry a credential from the answers.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Exchange, ExchangeListener } from '../../proxmox/exchange.js';
import type { HostInventory } from '../types.js';
import { fixtureFileName, fixtureOf } from './fixture-file.js';
import { RECORDING_FORMAT, type IndexedExchange, type RecordingIndex } from './recording-index.js';

/** One timed step of the run (a check group, or a create step on a node). */
export interface RecordedStep {
  name: string;
  node?: string;
  ms: number;
}

export interface Recorder {
  /** Pass to proxmoxApiFromConfig: writes each exchange as a fixture file. */
  readonly onExchange: ExchangeListener;
  /** The exchanges from now on belong to this step, in the index. */
  step(name: string, node?: string): void;
  /** Writes the index: the host's inventory, each step's time, every exchange in order. */
  finish(inventory: HostInventory, steps: RecordedStep[]): Promise<void>;
}

/** Creates DIR (or takes an empty one); a DIR that holds anything is refused, naming it. */
async function emptyDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const entries = await readdir(dir);
  if (entries.length > 0) throw new Error(`--record ${dir}: the directory is not empty (${entries.length} entries); give a new or empty one`);
}

function indexed(exchange: Exchange, file: string, runStart: number, step: { name?: string; node?: string }): IndexedExchange {
  return {
    file,
    method: exchange.method,
    path: exchange.path,
    ...(exchange.query === undefined ? {} : { query: exchange.query }),
    ...(exchange.form === undefined ? {} : { form: exchange.form }),
    ...(exchange.upload === undefined ? {} : { upload: { filename: exchange.upload.filename, size: exchange.upload.size } }),
    ...(step.name === undefined ? {} : { step: step.name }),
    ...(step.node === undefined ? {} : { node: step.node }),
    startMs: exchange.startedAt - runStart,
    ms: exchange.ms,
  };
}

export async function openRecorder(dir: string): Promise<Recorder> {
  await emptyDir(dir);
  const runStart = Date.now();
  const exchanges: IndexedExchange[] = [];
  let current: { name?: string; node?: string } = {};
  // Files are written one after another, in the order the answers came; finish waits for the last.
  let writes: Promise<void> = Promise.resolve();
  let failed: Error | undefined;
  const onExchange: ExchangeListener = (exchange) => {
    const file = fixtureFileName(exchanges.length + 1, exchange.method, exchange.path);
    exchanges.push(indexed(exchange, file, runStart, current));
    const text = `${JSON.stringify(fixtureOf(exchange), null, 2)}\n`;
    writes = writes.then(() => writeFile(join(dir, file), text)).catch((err: unknown) => void (failed ??= err instanceof Error ? err : new Error(`writing ${file}: ${JSON.stringify(err)}`)));
  };
  return {
    onExchange,
    step: (name, node) => void (current = { name, ...(node === undefined ? {} : { node }) }),
    finish: async (inventory, steps) => {
      await writes;
      if (failed !== undefined) throw failed;
      const index: RecordingIndex = { format: RECORDING_FORMAT, recordedAt: new Date(runStart).toISOString(), inventory, steps, exchanges };
      await writeFile(join(dir, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
    },
  };
}
