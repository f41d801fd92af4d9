// SPEC 27: what a webhook body carries: the delivery id, the event, the
// VM name, the job's id and name, when, and the result; for job.failed the
// error, redacted. Only the named result fields: nothing else a result
// holds reaches a receiver.
import { expect } from 'chai';
import { completedBody, failedBody } from '../../src/webhooks/body.js';
import type { JobEnd } from '../../src/webhooks/body.js';
import { registerSecret } from '../../src/secrets/redact.js';

const END: JobEnd = { deliveryId: 'vm.ready-create-web-1-1', name: 'web-1', jobId: 'create-web-1-1', job: 'create', occurredAt: new Date('2026-05-01T10:00:00.000Z') };

describe('webhook body (SPEC 27)', () => {
  it('vm.ready carries the head and the create result fields, and nothing else of the result', () => {
    const result = { providerId: 'vms/100300/web-1', vmid: 100300, node: 'pve1', uid: 'u-1', state: 'Running', address: '10.1.2.3', createdAt: '2026-05-01T09:59:00.000Z', userData: '#cloud-config', extra: 1 };
    expect(completedBody('vm.ready', END, result)).to.deep.equal({
      deliveryId: 'vm.ready-create-web-1-1',
      event: 'vm.ready',
      name: 'web-1',
      jobId: 'create-web-1-1',
      job: 'create',
      occurredAt: '2026-05-01T10:00:00.000Z',
      result: { providerId: 'vms/100300/web-1', vmid: 100300, node: 'pve1', uid: 'u-1', state: 'Running', address: '10.1.2.3', createdAt: '2026-05-01T09:59:00.000Z' },
    });
  });

  it('vm.updated carries what vm.ready does and the fields changed in place; vm.ready never carries changed', () => {
    const result = { vmid: 100300, state: 'Running', address: '10.1.2.3', changed: ['memoryMiB'], extra: 1 };
    expect(completedBody('vm.updated', { ...END, deliveryId: 'vm.updated-create-web-1-2' }, result)).to.deep.include({ event: 'vm.updated', result: { vmid: 100300, state: 'Running', address: '10.1.2.3', changed: ['memoryMiB'] } });
    expect(completedBody('vm.ready', END, result).result).not.to.have.property('changed');
  });

  it('vm.ready without an address (not waited for) has none; vm.deleted carries the delete result', () => {
    expect(completedBody('vm.ready', END, { vmid: 100300, state: 'Provisioning' }).result).to.deep.equal({ vmid: 100300, state: 'Provisioning' });
    const deleted = completedBody('vm.deleted', { ...END, job: 'delete' }, { deleted: true, vmid: 100300, seedsDeleted: 1, providerId: 'x' });
    expect(deleted).to.deep.include({ event: 'vm.deleted', job: 'delete' });
    expect(deleted.result).to.deep.equal({ deleted: true, vmid: 100300, seedsDeleted: 1 });
  });

  it('job.failed carries the error with secrets redacted, known and shaped', () => {
    registerSecret('whsec-known-secret-value');
    const body = failedBody(END, 'upload failed with whsec-known-secret-value and Bearer abc.def');
    expect(body).to.deep.include({ event: 'job.failed', name: 'web-1' });
    expect(body.result).to.deep.equal({ error: 'upload failed with [REDACTED] and Bearer [REDACTED]' });
  });

  it('a result that is not an object gives an empty result', () => {
    expect(completedBody('vm.deleted', END, undefined).result).to.deep.equal({});
  });
});
