// SPEC 9: /metrics joins our registry and BullMQ's per-queue texts; a
// family declared twice makes Prometheus reject the whole scrape.
import { expect } from 'chai';
import { mergeExpositions } from '../../src/web/prometheus-text.js';

const queueText = (queue: string, waiting: number): string =>
  [
    '# HELP bullmq_job_count Number of jobs in the queue by state',
    '# TYPE bullmq_job_count gauge',
    `bullmq_job_count{queue="${queue}", state="waiting"} ${waiting}`,
    '# HELP bullmq_job_completed_total Total number of completed jobs',
    '# TYPE bullmq_job_completed_total counter',
    `bullmq_job_completed_total{queue="${queue}"} 0`,
  ].join('\n');

describe('mergeExpositions (SPEC 9)', () => {
  it('declares each family once and keeps every sample under it', () => {
    const merged = mergeExpositions([queueText('vm', 3), queueText('system', 1)]);
    const lines = merged.trim().split('\n');
    expect(lines.filter((l) => l === '# TYPE bullmq_jobs gauge')).to.have.length(1);
    expect(lines.filter((l) => l === '# HELP bullmq_job_completed_total Total number of completed jobs')).to.have.length(1);
    const typeAt = lines.indexOf('# TYPE bullmq_jobs gauge');
    const vmAt = lines.indexOf('bullmq_jobs{queue="vm", state="waiting"} 3');
    const systemAt = lines.indexOf('bullmq_jobs{queue="system", state="waiting"} 1');
    const nextFamilyAt = lines.indexOf('# HELP bullmq_job_completed_total Total number of completed jobs');
    expect(vmAt).to.be.greaterThan(typeAt);
    expect(systemAt).to.be.greaterThan(vmAt).and.lessThan(nextFamilyAt);
  });

  it("serves BullMQ's gauge bullmq_job_count as bullmq_jobs (a gauge ending in _count is refused by promtool), its samples and labels unchanged", () => {
    const merged = mergeExpositions([queueText('vm', 3)]);
    expect(merged).to.not.contain('bullmq_job_count');
    expect(merged.split('\n').slice(0, 3)).to.deep.equal(['# HELP bullmq_jobs Number of jobs in the queue by state', '# TYPE bullmq_jobs gauge', 'bullmq_jobs{queue="vm", state="waiting"} 3']);
    expect(merged).to.contain('bullmq_job_completed_total{queue="vm"} 0');
  });

  it('keeps histogram buckets, sums and counts inside their family', () => {
    const histogram = [
      '# HELP pvep_job_duration_seconds d',
      '# TYPE pvep_job_duration_seconds histogram',
      'pvep_job_duration_seconds_bucket{le="1",job_name="create"} 1',
      'pvep_job_duration_seconds_sum{job_name="create"} 0.5',
      'pvep_job_duration_seconds_count{job_name="create"} 1',
    ].join('\n');
    const merged = mergeExpositions([histogram, queueText('vm', 0)]);
    expect(merged.startsWith(`${histogram}\n`)).to.equal(true);
  });
});
