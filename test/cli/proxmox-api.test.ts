// The worker's Proxmox client takes its timeouts from the config
// (budgets.connectMs, budgets.responseMs): a Proxmox that accepts the
// connection and never answers fails the call as Transient within the
// configured wait, instead of the built-in 60 s.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { proxmoxApiFromConfig } from '../../src/worker/proxmox-api.js';
import { loadConfig } from '../../src/config/index.js';
import { TransientError } from '../../src/errors.js';
import { classifyError } from '../../src/proxmox/classify.js';
import { startRawServer } from '../support/replay-server.js';

describe('the worker Proxmox client from config (budgets.responseMs)', function () {
  // With the 60 s default the call below would outlast this.
  this.timeout(10_000);

  it('gives up on a silent Proxmox after BUDGETS_RESPONSE_MS', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'api-cfg-'));
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'root@pam!t=00000000-0000-0000-0000-000000000000\n', { mode: 0o600 });
    const server = await startRawServer(() => undefined);
    try {
      const config = loadConfig({ env: { BUDGETS_RESPONSE_MS: '300', PROXMOX_TOKEN_FILE: tokenFile } });
      expect(config.budgets).to.include({ responseMs: 300, connectMs: 10_000 });
      const err = await proxmoxApiFromConfig(config, server.url).version().then(
        () => undefined,
        (e: unknown) => e,
      );
      const classified = classifyError(err);
      expect(classified).to.be.instanceOf(TransientError);
      expect(classified.reason).to.contain('did not answer in time');
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
