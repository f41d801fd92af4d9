// The modules `npm run test:mutation` mutates (issue 19), each against the
// tests that cover it, with the score below which the run fails.

export interface MutatedModule {
  /** Short name: the report lands in test-output/mutation/<name>/. */
  name: string;
  /** The source file mutated. */
  file: string;
  /** Files its code was cut into (issue 28), mutated with it, so the module's score covers the same code as before the cut. */
  also?: readonly string[];
  /** The test files run against each mutant: the module's own, no e2e. */
  tests: string[];
  /** Mutation score (percent) below which the run fails. */
  breakAt: number;
}

export const MUTATED_MODULES: readonly MutatedModule[] = [
  {
    name: 'classify',
    file: 'src/proxmox/classify.ts',
    tests: ['test/proxmox/classify.test.ts', 'test/proxmox/task-exit.test.ts', 'test/proxmox/classify-codes.test.ts'],
    breakAt: 85,
  },
  {
    name: 'tasks',
    file: 'src/provider/tasks.ts',
    also: ['src/provider/waits/task-board.ts', 'src/provider/waits/poll-loop.ts'],
    tests: ['test/provider/tasks.test.ts', 'test/provider/tasks-edges.test.ts', 'test/provider/waits.test.ts', 'test/provider/task-board.test.ts'],
    breakAt: 85,
  },
  {
    name: 'fields',
    file: 'src/job-table/fields.ts',
    tests: ['test/jobs/field-table.test.ts', 'test/jobs/schema.test.ts', 'test/jobs/field-rules.test.ts', 'test/jobs/strings-rule.test.ts'],
    breakAt: 85,
  },
  { name: 'address', file: 'src/provider/address.ts', tests: ['test/provider/address.test.ts', 'test/provider/address-rules.test.ts'], breakAt: 85 },
  { name: 'get', file: 'src/provider/get.ts', tests: ['test/provider/get.test.ts', 'test/provider/get-failures.test.ts'], breakAt: 85 },
  { name: 'ownership', file: 'src/provider/ownership.ts', tests: ['test/provider/ownership.test.ts', 'test/provider/create.test.ts'], breakAt: 85 },
  {
    name: 'decide',
    file: 'src/reconciler/decide.ts',
    tests: ['test/reconciler/decide.test.ts', 'test/reconciler/sweep.test.ts', 'test/reconciler/sweep-known.test.ts', 'test/reconciler/sweep-left-behind.test.ts'],
    breakAt: 85,
  },
  { name: 'name-lock', file: 'src/queue/name-lock.ts', tests: ['test/queue/name-lock.test.ts', 'test/queue/name-lock-hold.test.ts'], breakAt: 85 },
  {
    name: 'processor',
    file: 'src/worker/processor.ts',
    also: ['src/worker/job-run.ts', 'src/worker/name-claim.ts', 'src/worker/job-settle.ts', 'src/worker/job-context.ts'],
    tests: ['test/worker/processor.test.ts', 'test/worker/processor-paths.test.ts', 'test/webhooks/processor-events.test.ts'],
    breakAt: 85,
  },
  { name: 'create', file: 'src/provider/create.ts', tests: ['test/provider/create.test.ts', 'test/provider/create-log.test.ts'], breakAt: 85 },
];
