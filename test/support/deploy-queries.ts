// The PromQL of deploy/: every `expr` of the Grafana dashboard's panels
// (and the selector of each variable's label_values) and of the
// Prometheus alert rules, and the metric names they name.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';

export const DEPLOY = join(import.meta.dirname, '..', '..', 'deploy');
export const DASHBOARD_FILE = join(DEPLOY, 'grafana', 'pve-provisioner.json');
export const ALERTS_FILE = join(DEPLOY, 'prometheus', 'alerts.yml');

/** A Grafana variable's `label_values(<selector>, <label>)` (SPEC 32's cluster variable) is Grafana's, not PromQL: its selector is the query. */
function promqlOf(query: string): string {
  return /^label_values\((.+),\s*[A-Za-z_][A-Za-z0-9_]*\s*\)$/.exec(query.trim())?.[1] ?? query;
}

function exprsIn(value: unknown, found: string[]): string[] {
  if (Array.isArray(value)) for (const item of value) exprsIn(item, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if ((key === 'expr' || key === 'query') && typeof inner === 'string') found.push(promqlOf(inner));
      else exprsIn(inner, found);
    }
  }
  return found;
}

export function dashboardQueries(): string[] {
  return exprsIn(JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as unknown, []);
}

export function alertQueries(): string[] {
  return exprsIn(load(readFileSync(ALERTS_FILE, 'utf8')), []);
}

export function deployQueries(): string[] {
  return [...dashboardQueries(), ...alertQueries()];
}

/** Our metric names and BullMQ's in one query (label values and functions are not names). */
export function metricNamesIn(query: string): string[] {
  const withoutStrings = query.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  return [...withoutStrings.matchAll(/\b(?:pvep|bullmq)_[A-Za-z0-9_]+\b/g)].map((m) => m[0]);
}
