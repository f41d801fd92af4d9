// What one provider instance (one worker process) shares between all its
// operations' waits (SPEC 26): the learned durations, the task board,
// the running board, and the step reads creates share. Deps built without them (tests of a helper alone)
// poll each task and VM on its own, as before.
import type { Logger } from '../log.js';
import type { ProxmoxApi } from '../proxmox/api.js';
import type { Sleep } from './sleep.js';
import { Expectations } from './expectations.js';
import { RunningBoard } from './running-board.js';
import { SharedReads } from './shared-reads.js';
import { TaskBoard } from './task-board.js';

export interface Waits {
  expectations: Expectations;
  tasks: TaskBoard;
  running: RunningBoard;
  reads: SharedReads;
}

export interface WaitsDeps {
  api: ProxmoxApi;
  logger: Logger;
  now: () => Date;
  sleep: Sleep;
  pollMs: number;
}

export function createWaits(deps: WaitsDeps): Waits {
  const expectations = new Expectations();
  const boardDeps = { ...deps, expectations };
  return { expectations, tasks: new TaskBoard(boardDeps), running: new RunningBoard(boardDeps), reads: new SharedReads(deps.api) };
}
