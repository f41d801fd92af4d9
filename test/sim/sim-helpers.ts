// Starting a simulator for a test and talking to it over real HTTP, with
// a clock the test moves, so task and agent timings are exact.
import { ApiSchema } from '../../src/sim/schema.js';
import { startSimulator, type RunningSimulator, type StartOptions } from '../../src/sim/index.js';
import type { FaultSet } from '../../src/sim/index.js';
import { loadFixture } from '../support/fixtures.js';

export const TOKEN = 'root@pam!provisioner=5f0c8a1e-sim-test-secret';
export const AUTH = { Authorization: `PVEAPIToken=${TOKEN}` };
/** Node names of the captures, so answers can be compared with fixtures byte for byte. */
export const NODES = ['pv1-1', 'pv1-2'];

const schema = ApiSchema.load();

export class TestClock {
  constructor(public ms = Date.UTC(2026, 8, 18, 14, 12, 3)) {}
  now = (): number => this.ms;
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

export interface TestSim extends RunningSimulator {
  clock: TestClock;
  api(method: string, path: string, params?: Record<string, string | number>, headers?: Record<string, string>): Promise<Answer>;
  control(method: string, path: string, body?: unknown): Promise<unknown>;
  faults(set: FaultSet): Promise<void>;
  /** Runs the API call and answers its `data`, failing on a non-200. */
  data<T>(method: string, path: string, params?: Record<string, string | number>): Promise<T>;
}

/** A VM entry of GET /cluster/resources, as the tests read it. */
export interface ResourceEntry {
  vmid: number;
  name?: string;
  status: string;
  lock?: string;
  tags?: string;
  template?: number;
}

export interface Answer {
  status: number;
  reason: string;
  body: string;
  contentType: string | null;
}

/**
 * Times in seconds before a timeScale of 1: clone 2 s, other tasks 1 s,
 * agent 47 s (F16, F21). pvestatd's lag is off (statdSeconds 0) unless a
 * test asks for it, so /cluster/resources is current.
 */
export async function startTestSim(options: Partial<StartOptions> = {}): Promise<TestSim> {
  const clock = new TestClock();
  const running = await startSimulator({
    nodes: NODES,
    vms: 2,
    timeScale: 1,
    cloneSeconds: 2,
    taskSeconds: 1,
    agentSeconds: 47,
    statdSeconds: 0,
    // At timeScale 1 the daemon model's costs are a real host's (3 s per agent ping): off unless a test asks (SPEC 28).
    proxyWorkers: 0,
    daemonWorkers: 0,
    now: clock.now,
    schema,
    ...options,
    tokens: [TOKEN],
  });
  const api = async (method: string, path: string, params: Record<string, string | number> = {}, headers: Record<string, string> = AUTH): Promise<Answer> => {
    const form = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]));
    const withBody = method === 'POST' || method === 'PUT';
    const query = !withBody && form.size > 0 ? `?${form.toString()}` : '';
    const response = await fetch(`${running.url}/api2/json${path}${query}`, {
      method,
      headers: withBody ? { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' } : headers,
      body: withBody ? form.toString() : undefined,
    });
    return { status: response.status, reason: response.statusText, body: await response.text(), contentType: response.headers.get('content-type') };
  };
  const control = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${running.url}/_sim/${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
    return response.json();
  };
  return {
    ...running,
    clock,
    api,
    control,
    faults: async (set) => {
      await control('POST', 'faults', set);
    },
    data: async <T>(method: string, path: string, params?: Record<string, string | number>): Promise<T> => {
      const answer = await api(method, path, params);
      if (answer.status !== 200) throw new Error(`${method} ${path}: ${answer.status} ${answer.reason} ${answer.body}`);
      return (JSON.parse(answer.body) as { data: T }).data;
    },
  };
}

/** The status, reason phrase and body of a captured answer. */
export function captured(name: string): { status: number; reason: string; body: string } {
  const fixture = loadFixture(name);
  return { status: fixture.status, reason: fixture.reason, body: fixture.body };
}

export function shape(answer: Answer): { status: number; reason: string; body: string } {
  return { status: answer.status, reason: answer.reason, body: answer.body };
}
