// Type-aware lint: the promise rules catch un-awaited Proxmox calls, the
// exhaustiveness rule catches a new error class or job state nobody handles.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The layers (docs/architecture.md): a file imports only from its own
// floor and the floors below it. Each group matches the import as it is
// written ('../queue/registry.js', '../../src/queue/registry.js').
const AREA = {
  iso9660: ['**/iso9660/*'],
  nocloud: ['**/nocloud/*'],
  proxmox: ['**/proxmox/*'],
  webhooks: ['**/webhooks/*'],
  'job-table': ['**/job-table/*'],
  provider: ['**/provider/*'],
  jobs: ['**/jobs/*'],
  queue: ['**/queue/*'],
  reconciler: ['**/reconciler/*'],
  worker: ['**/worker/*'],
  client: ['**/client.js'],
  web: ['**/web/*', '**/web/**/*'],
  cli: ['**/cli/*', '**/cli.js'],
  sim: ['**/sim/*', '**/sim/**/*'],
};

// The wait scheduler (src/provider/waits/, SPEC 26) stands below the
// provider's operations: of the provider's own files it imports only the
// shared helpers (types, context, errors), never an operation, tasks.ts,
// or deps.ts, which builds it. Matched on the import as written from
// inside waits/ ('../create.js'); '../../log.js' and './x.js' pass.
const PROVIDER_OPERATIONS = { regex: '^\\.\\./(?!(types|context|errors)\\.js$)[^./][^/]*$' };

/** no-restricted-imports for `files`: none of `areas` (names of AREA, or [name, { regex }]). */
function layer(files, floor, areas) {
  const patterns = areas.map((area) => {
    const [name, match] = Array.isArray(area) ? area : [area, AREA[area]];
    const message = `${floor} may not import ${name} (the layers: docs/architecture.md).`;
    return Array.isArray(match) ? { group: match, message } : { regex: match.regex, message };
  });
  return { files, rules: { 'no-restricted-imports': ['error', { patterns }] } };
}

const ABOVE_GROUND = ['iso9660', 'nocloud', 'proxmox', 'webhooks', 'job-table', 'provider', 'jobs', 'queue', 'reconciler', 'worker', 'client', 'web', 'cli', 'sim'];
const ABOVE_PROVIDER = ['jobs', 'webhooks', 'queue', 'reconciler', 'worker', 'client', 'web', 'cli', 'sim'];

export default tseslint.config(
  // examples/ is plain JavaScript for users to copy, run as written by test/e2e/readme-walk.test.ts.
  { ignores: ['dist/**', 'packages/*/dist/**', 'node_modules/**', 'coverage/**', 'test-output/**', 'examples/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js', 'scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  layer(['src/config/**/*.ts', 'src/secrets/**/*.ts', 'src/errors.ts', 'src/log.ts', 'src/metrics.ts', 'src/desired-state.ts', 'src/redis-script.ts', 'src/redis-keys.ts', 'src/listener-limits.ts'], 'the ground floor', ABOVE_GROUND),
  layer(['src/iso9660/**/*.ts'], 'src/iso9660/', ABOVE_GROUND.filter((a) => a !== 'iso9660')),
  layer(['src/nocloud/**/*.ts'], 'src/nocloud/', ['webhooks', 'job-table', 'provider', 'jobs', 'queue', 'reconciler', 'worker', 'client', 'web', 'cli', 'sim']),
  layer(['src/proxmox/**/*.ts'], 'src/proxmox/', ['nocloud', 'webhooks', 'job-table', 'provider', 'jobs', 'queue', 'reconciler', 'worker', 'client', 'web', 'cli', 'sim']),
  // The webhook body, signature and POST (SPEC 27): the ground floor and npm packages only.
  layer(['src/webhooks/**/*.ts'], 'src/webhooks/', ABOVE_GROUND.filter((a) => a !== 'webhooks')),
  // The job table (fields, schemas, results, job ids, the ssh-key rule): data and validation, the ground floor and npm packages only.
  layer(['src/job-table/**/*.ts'], 'src/job-table/', ABOVE_GROUND.filter((a) => a !== 'job-table')),
  layer(['src/provider/**/*.ts'], 'src/provider/', ABOVE_PROVIDER),
  // A later entry's no-restricted-imports replaces the one above for these files: the provider's areas again, and its operations.
  layer(['src/provider/waits/**/*.ts'], 'src/provider/waits/', [...ABOVE_PROVIDER, ["the provider's operations, tasks.ts or deps.ts", PROVIDER_OPERATIONS]]),
  layer(['jobs/**/*.ts'], 'jobs/', ['webhooks', 'queue', 'reconciler', 'worker', 'client', 'web', 'cli', 'sim']),
  layer(['src/queue/**/*.ts'], 'src/queue/', ['reconciler', 'worker', 'client', 'web', 'cli', 'sim']),
  layer(['src/reconciler/**/*.ts'], 'src/reconciler/', ['worker', 'client', 'web', 'cli', 'sim']),
  layer(['src/worker/**/*.ts'], 'src/worker/', ['client', 'web', 'cli', 'sim']),
  // The producer library: nothing worker-side (test/client/importable.test.ts checks what it reaches).
  layer(['src/client.ts'], 'src/client.ts', ['proxmox', 'webhooks', 'provider', 'jobs', 'reconciler', 'worker', 'web', 'cli', 'sim']),
  layer(['src/web/**/*.ts'], 'src/web/', ['proxmox', 'provider', 'jobs', 'reconciler', 'worker', 'cli', 'sim']),
  // The simulator stands apart: it is Proxmox seen from outside.
  layer(['src/sim/**/*.ts'], 'src/sim/', ['iso9660', 'nocloud', 'proxmox', 'webhooks', 'job-table', 'provider', 'jobs', 'queue', 'reconciler', 'worker', 'client', 'web', 'cli']),
  // Small functions (issue 28): one that outgrows a screen is cut at its seams. Comments and blank lines count.
  { files: ['src/**/*.ts', 'jobs/**/*.ts'], rules: { 'max-lines-per-function': ['error', { max: 60 }] } },
  {
    files: ['test/**/*.ts'],
    rules: {
      // chai's `expect(x).to.be.true` style reads as an unused expression.
      '@typescript-eslint/no-unused-expressions': 'off',
      'no-unused-expressions': 'off',
    },
  },
  {
    // Plain JavaScript run by node without a TypeScript loader (npm start's prestart).
    files: ['eslint.config.js', 'scripts/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
