// `verify --record DIR` (SPEC 33). BUILT BY THE record-replay BRANCH: this
// file is its interface only until then.
import type { ExchangeListener } from '../../proxmox/exchange.js';
import type { HostInventory } from '../types.js';

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

export function openRecorder(dir: string): Promise<Recorder> {
  return Promise.reject(new Error(`recording to ${dir} is not built yet`));
}
