// SPEC 7, 8: `worker` or `web` on the default config (proxmox.url "sim")
// with no simulator listening says so once, with what to run, and once
// more when the simulator answers; with a real Proxmox URL it says nothing.
import { expect } from 'chai';
import { createServer, type Server } from 'node:net';
import { Writable } from 'node:stream';
import { watchSimulator } from '../../src/cli/sim-check.js';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/log.js';
import { freePort } from '../support/free-port.js';

function sink(): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push((JSON.parse(chunk.toString()) as { msg: string }).msg);
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'info', pretty: false, destination }) };
}

async function eventually(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a worker on the default config with no simulator (SPEC 7, 8)', function () {
  this.timeout(20_000);
  let server: Server | undefined;
  after(() => server?.close());

  it('says once that no simulator answers and what to run, then once that it answers', async () => {
    const port = await freePort();
    const { lines, logger } = sink();
    const watch = watchSimulator(loadConfig({ env: {}, overrides: { sim: { port } } }), logger, 'worker');
    expect(await watch?.first).to.equal(false);
    expect(lines).to.deep.equal([
      `proxmox.url is "sim" but no simulator answers at http://127.0.0.1:${port}: run \`pve-provisioner sim\` as a process of its own (the Procfile's sim: line), or \`npm start\`, which runs everything in one; jobs fail "Proxmox unreachable" until it answers`,
    ]);
    const listening = createServer((socket) => socket.destroy());
    server = listening;
    await new Promise<void>((resolve) => listening.listen(port, '127.0.0.1', resolve));
    await eventually(() => lines.length === 2, 15_000);
    expect(lines[1]).to.equal(`the simulator at http://127.0.0.1:${port} answers now`);
    watch?.stop();
  });

  it('says nothing when the simulator answers', async () => {
    const up = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => up.listen(0, '127.0.0.1', resolve));
    const address = up.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const { lines, logger } = sink();
    const watch = watchSimulator(loadConfig({ env: {}, overrides: { sim: { port } } }), logger, 'worker');
    expect(await watch?.first).to.equal(true);
    watch?.stop();
    up.close();
    expect(lines).to.deep.equal([]);
  });

  it('does not look for a simulator when proxmox.url names a real host', () => {
    const { logger } = sink();
    expect(watchSimulator(loadConfig({ env: {}, overrides: { proxmox: { url: 'https://pve.example:8006' } } }), logger, 'worker')).to.equal(undefined);
  });
});
