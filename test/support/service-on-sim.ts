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

/** Config groups merged over the test defaults key by key (`{ sim: { timeScale: 0.5 } }`); a list (`pools`) is taken whole. */
export type ConfigOverrides = Record<string, Record<string, unknown> | unknown[]>;

export interface ServiceOnSimOptions {
  /** Config groups merged over the test defaults, key by key; a list (`pools`) as given. */
  overrides?: ConfigOverrides;
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
  /** The running web and worker (and, until a restart, the simulator). */
  running: RunningAll;
  config: Config;
  /** The simulator's URL: the same across restarts. */
  simUrl: string;
  dir: string;
  prefix: string;
  /** The API token and a JSON content type. */
  headers: Record<string, string>;
  url(path: string): string;
  /** POST /_sim/faults on the simulator (SPEC 8). */
  simFaults(faults: Record<string, unknown>): Promise<void>;
  /**
   * Stops the web and worker, keeping the simulator, Redis keys and
   * directory, and starts them again on `overrides` over the first start's
   * (a changed config after a restart); `running`, `config` and `url` then
   * answer for the new ones.
   */
  restart(overrides: ConfigOverrides): Promise<void>;
  /** Stops it, removes its Redis keys and its directory. */
  close(): Promise<void>;
}

function mergeOverrides(defaults: ConfigOverrides, given: ConfigOverrides): ConfigOverrides {
  const groups = [...new Set([...Object.keys(defaults), ...Object.keys(given)])];
  return Object.fromEntries(
    groups.map((group): [string, Record<string, unknown> | unknown[]] => {
      const base = defaults[group] ?? {};
      const over = given[group];
      if (Array.isArray(over) || over === undefined || Array.isArray(base)) return [group, over ?? base];
      return [group, { ...base, ...over }];
    }),
  );
}

export async function startServiceOnSim(name: string, options: ServiceOnSimOptions = {}): Promise<ServiceOnSim> {
  const dir = mkdtempSync(join(tmpdir(), `pvep-${name}-`));
  const prefix = uniquePrefix(name);
  const redisUrl = options.redisUrl ?? REDIS_URL;
  const given = options.overrides ?? {};
  const simGiven = given.sim;
  const timeScale = Number((Array.isArray(simGiven) ? undefined : simGiven?.timeScale) ?? 0.02);
  const defaults: ConfigOverrides = {
    redis: { url: redisUrl, prefix },
    sim: { timeScale },
    // budgets.firstAddressSeconds's default (30 s, a real host's) at the simulator's scale, as its boot is.
    budgets: { firstAddressSeconds: FIRST_ADDRESS_SECONDS * timeScale },
    proxmox: { tokenFile: join(dir, 'proxmox-token') },
    http: { apiTokensFile: join(dir, 'api-tokens'), boardUsersFile: join(dir, 'board-users'), fingerprintKeyFile: join(dir, 'fingerprint-key') },
  };
  const merged = mergeOverrides(defaults, given);
  let config: Config | undefined;
  let running: RunningAll | undefined;
  for (let tries = 0; running === undefined && tries < (options.publicUrl ? PUBLIC_PORT_TRIES : 1); tries += 1) {
    const webPort = options.publicUrl ? await freePort() : (options.webPort ?? 0);
    const overrides = options.publicUrl ? mergeOverrides(merged, { http: { publicUrl: `http://127.0.0.1:${webPort}` } }) : merged;
    config = loadConfig({ env: {}, overrides });
    running = await startAll(config, silentLogger(), { webPort, simPort: 0, ...(options.metrics ? { metrics: options.metrics } : {}) });
  }
  if (running === undefined || config === undefined) throw new Error('startAll refused to start');
  // The tokens file's first token (a test may give its own file, SPEC 34: a token line may carry its tenant after it).
  const token = readFileSync(config.http.apiTokensFile, 'utf8').trim().split(/\s+/)[0] ?? '';
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const first = running;
  const simUrl = first.sim?.url ?? '';
  const service: ServiceOnSim = {
    running,
    config,
    simUrl,
    dir,
    prefix,
    headers,
    url: (path) => `${service.running.web.url}${path}`,
    async simFaults(faults) {
      const res = await fetch(`${simUrl}/_sim/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults) });
      expect(res.status, await res.text()).to.equal(200);
    },
    async restart(again) {
      await service.running.web.close();
      await service.running.worker.close();
      // The first start's simulator, by its URL: this start starts none.
      const restarted = loadConfig({ env: {}, overrides: mergeOverrides(mergeOverrides(merged, again), { proxmox: { url: simUrl } }) });
      const started = await startAll(restarted, silentLogger(), { webPort: 0, ...(options.metrics ? { metrics: options.metrics } : {}) });
      if (started === undefined) throw new Error('startAll refused to start again');
      service.running = started;
      service.config = restarted;
    },
    async close() {
      await service.running.close();
      if (service.running !== first) await first.sim?.close();
      const redis = new Redis(redisUrl);
      await deletePrefix(redis, prefix);
      redis.disconnect();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return service;
}
