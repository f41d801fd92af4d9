// `npx tsx scripts/record-sim-run.ts [DIR]`: `pve-provisioner verify
// --create --record DIR` against a fresh simulator (one node, pv1-1, its
// template 9001, storage proxy-seeds), DIR fixtures/recordings/sim-create
// by default (new or empty): the recording the replay suite ships with
// (SPEC 33). Exits with verify's status.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../src/cli/verify.js';
import { startSimulator } from '../src/sim/index.js';

const dir = process.argv[2] ?? 'fixtures/recordings/sim-create';
const token = `root@pam!provisioner=${randomUUID()}`;
const sim = await startSimulator({ tokens: [token], port: 0, nodes: ['pv1-1'], vms: 0, timeScale: 0.01 });
const work = mkdtempSync(join(tmpdir(), 'record-sim-run-'));
let code: number;
try {
  const tokenFile = join(work, 'token');
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  const configFile = join(work, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      proxmox: { url: sim.url, tokenFile, nodes: [{ name: 'pv1-1', template: 9001, isoStorage: 'proxy-seeds' }] },
      // The simulator's times at its 0.01 scale.
      budgets: { pollMs: 20, cloneSeconds: 30, taskSeconds: 30, runningSeconds: 30, addressSeconds: 30, firstAddressSeconds: 0.3 },
    }),
  );
  process.env.PVE_PROVISIONER_CONFIG = configFile;
  code = await run(['--create', '--record', dir]);
} finally {
  await sim.close();
  rmSync(work, { recursive: true, force: true });
}
process.exit(code);
