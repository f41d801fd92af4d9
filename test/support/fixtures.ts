// The Proxmox answers of fixtures/ (reconstructions of the seeds' facts;
// see fixtures/README.md), loaded for tests, the fake and the simulator.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProxmoxApiError } from '../../src/proxmox/api-error.js';
import { apiErrorFromAnswer } from '../../src/proxmox/response-error.js';

export const FIXTURES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures');

export interface Fixture {
  status: number;
  /** The HTTP reason phrase. */
  reason: string;
  headers: Record<string, string>;
  /** The raw body text, exactly as the server sends it. */
  body: string;
}

/** Every fixture name (file name without `.json`), sorted. */
export function fixtureNames(): string[] {
  return readdirSync(FIXTURES_DIR)
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.slice(0, -'.json'.length))
    .sort();
}

export function loadFixture(name: string): Fixture {
  const text = readFileSync(join(FIXTURES_DIR, `${name}.json`), 'utf8');
  return JSON.parse(text) as Fixture;
}

/** True for a non-2xx fixture. */
export function isErrorFixture(fixture: Fixture): boolean {
  return fixture.status < 200 || fixture.status > 299;
}

/** The error the HTTP client raises for this (non-2xx) fixture. */
export function apiErrorFromFixture(name: string, method = 'GET', path = `/fixture/${name}`): ProxmoxApiError {
  const fixture = loadFixture(name);
  if (!isErrorFixture(fixture)) throw new Error(`fixture ${name} is a ${fixture.status}, not an error`);
  return apiErrorFromAnswer(fixture, method, path);
}

/** The parsed `data` of a successful fixture. */
export function fixtureData<T>(name: string): T {
  const fixture = loadFixture(name);
  if (isErrorFixture(fixture)) throw new Error(`fixture ${name} is a ${fixture.status} error, it has no data`);
  const parsed = JSON.parse(fixture.body) as { data: T };
  return parsed.data;
}
