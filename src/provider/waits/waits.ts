// What one provider instance (one worker process) shares between all its
// operations' waits (SPEC 26): the learned durations, the task board,
// the running board, the step reads creates share and the running VMs
// seen per node. Built once per provider by createProviderDeps (deps.ts);
// every task and every VM to run is waited on here, there is no other path.
import type { Logger } from '../../log.js';
import type { ProxmoxApi } from '../../proxmox/api.js';
import type { Sleep } from './sleep.js';
import { Expectations } from './expectations.js';
import { LearnedSync } from './learned-sync.js';
import type { LearnedTimesStore } from './learned-times.js';
import { NodeLoad } from './node-load.js';
import { RunningBoard } from './running-board.js';
import { SharedReads } from './shared-reads.js';
import { TaskBoard } from './task-board.js';

export interface Waits {
  expectations: Expectations;
  tasks: TaskBoard;
  running: RunningBoard;
  reads: SharedReads;
  /** The running VMs seen on each node: whether the running board's node listing pays. */
  load: NodeLoad;
}

export interface WaitsDeps {
  api: ProxmoxApi;
  logger: Logger;
  now: () => Date;
  sleep: Sleep;
  pollMs: number;
  /** Where every worker process's learned wait times are kept (Redis); without it they stay in this process. */
  learnedTimes?: LearnedTimesStore;
}

export function createWaits(deps: WaitsDeps): Waits {
  const sync = deps.learnedTimes ? new LearnedSync({ store: deps.learnedTimes, logger: deps.logger, now: deps.now }) : undefined;
  const expectations = new Expectations(sync);
  const boardDeps = { ...deps, expectations };
  const load = new NodeLoad();
  return { expectations, tasks: new TaskBoard(boardDeps), running: new RunningBoard(boardDeps, load), reads: new SharedReads(deps.api, load), load };
}
