// The whole service as `npm start` runs it, in-process (startAll: the
// simulator, the web app and the worker on real sockets), on free ports,
// a temp directory for its secret files and a Redis prefix of its own;
// for end-to-end tests driven over HTTP.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startAll, type RunningAll, type StartAllOptions } from '../../src/cli/all.js';
import { loadConfig, type Config } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { REDIS_URL, deletePrefix, uniquePrefix } from './redis.js';
import { freePort } from './free-port.js';

/** Ports tried for a web process named in http.publicUrl before giving up. */
const PUBLIC_PORT_TRIES = 5;

const FIRST_ADDRESS_SECONDS = 30;

export interface ServiceOnSimOptions {
  /** Config groups merged over the test defaults, key by key (`{ sim: { timeScale: 0.5 } }`). */
  overrides?: Record<string, Record<string, unknown>>;
  /** Another Redis than the shared one (a test's own server). */
  redisUrl?: string;
  metrics?: StartAllOptions['metrics'];
  /** The web process's port (a free one by default): a test that must name the address in config picks it first. */
  webPort?: number;
  /**
   * The web process on a port picked first and named in http.publicUrl
   * (what a generated client or a phone-home guest calls); another port
   * when that one was taken before the web process bound it (on a loaded
   * machine another process's socket can take a port freePort found free).
   */
  publicUrl?: boolean;
}

export interface ServiceOnSim {
  running: RunningAll;
  config: Config;
  dir: string;
  prefix: string;
  /** The API token and a JSON content type. */
  headers: Record<string, string>;
  url(path: string): string;
  /** POST /_sim/faults on the simulator (SPEC 8). */
  simFaults(faults: Record<string, unknown>): Promise<void>;
  /** Stops it, removes its Redis keys and its directory. */
  close(): Promise<void>;
}

export async function startServiceOnSim(name: string, options: ServiceOnSimOptions = {}): Promise<ServiceOnSim> {
  const dir = mkdtempSync(join(tmpdir(), `pvep-${name}-`));
  const prefix = uniquePrefix(name);
  const redisUrl = options.redisUrl ?? REDIS_URL;
  const given = options.overrides ?? {};
  const timeScale = Number(given.sim?.timeScale ?? 0.02);
  const defaults: Record<string, Record<string, unknown>> = {
    redis: { url: redisUrl, prefix },
    sim: { timeScale },
    // budgets.firstAddressSeconds's default (30 s, a real host's) at the simulator's scale, as its boot is.
    budgets: { firstAddressSeconds: FIRST_ADDRESS_SECONDS * timeScale },
    proxmox: { tokenFile: join(dir, 'proxmox-token') },
    http: { apiTokensFile: join(dir, 'api-tokens'), boardUsersFile: join(dir, 'board-users'), fingerprintKeyFile: join(dir, 'fingerprint-key') },
  };
  const merged = Object.fromEntries([...new Set([...Object.keys(defaults), ...Object.keys(given)])].map((group) => [group, { ...defaults[group], ...given[group] }]));
  let config: Config | undefined;
  let running: RunningAll | undefined;
  for (let tries = 0; running === undefined && tries < (options.publicUrl ? PUBLIC_PORT_TRIES : 1); tries += 1) {
    const webPort = options.publicUrl ? await freePort() : (options.webPort ?? 0);
    const overrides = options.publicUrl ? { ...merged, http: { ...merged.http, publicUrl: `http://127.0.0.1:${webPort}` } } : merged;
    config = loadConfig({ env: {}, overrides });
    running = await startAll(config, silentLogger(), { webPort, simPort: 0, ...(options.metrics ? { metrics: options.metrics } : {}) });
  }
  if (running === undefined || config === undefined) throw new Error('startAll refused to start');
  const headers = { authorization: `Bearer ${readFileSync(join(dir, 'api-tokens'), 'utf8').trim()}`, 'content-type': 'application/json' };
  return {
    running,
    config,
    dir,
    prefix,
    headers,
    url: (path) => `${running.web.url}${path}`,
    async simFaults(faults) {
      const res = await fetch(`${running.sim?.url ?? ''}/_sim/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults) });
      expect(res.status, await res.text()).to.equal(200);
    },
    async close() {
      await running.close();
      const redis = new Redis(redisUrl);
      await deletePrefix(redis, prefix);
      redis.disconnect();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
