// SPEC 9: the /metrics text lists the service's own metrics in the order
// they have always had. createMetrics is built one area at a time (issue
// 28), and a registry writes its metrics in the order they registered, so
// the areas' order is this list's.
import { expect } from 'chai';
import { createMetrics } from '../../src/metrics.js';

const ORDER = [
  'pvep_jobs_total',
  'pvep_job_duration_seconds',
  'pvep_proxmox_calls_total',
  'pvep_proxmox_call_duration_seconds',
  'pvep_lock_waits_total',
  'pvep_reconciler_findings_total',
  'pvep_proxmox_budget_wait_seconds',
  'pvep_proxmox_budget_waits_total',
  'pvep_proxmox_budget_unavailable_total',
  'pvep_proxmox_daemon_slot_wait_seconds',
  'pvep_proxmox_daemon_slot_waits_total',
  'pvep_proxmox_daemon_slots_held',
  'pvep_proxmox_daemon_slot_unavailable_total',
  'pvep_webhook_deliveries_total',
  'pvep_webhook_delivery_duration_seconds',
  'pvep_leases_expired_total',
  'pvep_lease_end_lag_seconds',
  'pvep_address_unleased_seen_total',
  'pvep_pool_claims_total',
  'pvep_pool_misses_total',
  'pvep_pool_claim_seconds',
  'pvep_tenant_refusals_total',
];

describe('the metrics of SPEC 9 in the /metrics text', () => {
  it('are written in the order they always were, every one of them', async () => {
    const text = await createMetrics().registry.metrics();
    const helped = [...text.matchAll(/^# HELP (\S+) /gm)].map((m) => m[1]);
    expect(helped).to.deep.equal(ORDER);
  });
});
