// SPEC 2, 13, 27 against the running service: `all` in-process on the
// simulator (startAll, real sockets, its own Redis prefix), driven over
// HTTP, with a webhook receiver. A create of a present name that changes
// only cores or grows the disk is a 202 with a new job that changes the
// running VM (a stop and start for the cores the simulator holds as
// Proxmox does, a resize for the disk), records the new spec and sends
// vm.updated; a repeat is the same job; a smaller disk, or cores with
// other user-data, is a 409 naming only what cannot change in place.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/free-port.js';
import { startServiceOnSim, type ServiceOnSim } from '../support/service-on-sim.js';
import { webhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const SECRET = 'whsec-in-place-e2e-3c9a1f7d5b2e4a60';
const NAME = 'grow-e2e';

interface JobAnswer {
  state: string;
  logs: string[];
  result?: { vmid?: number; state?: string; changed?: string[] };
}
interface SimVmView {
  vmid: number;
  status: string;
  config: Record<string, string | number>;
  pending?: Record<string, string | number>;
}

describe('in-place changes through the running service on the simulator (SPEC 2, 13, 27)', function () {
  this.timeout(180_000);
  let service: ServiceOnSim;
  let receiver: WebhookReceiver;
  let secretDir: string;
  const base = { name: NAME, cores: 2, memoryMiB: 2048, diskGiB: 10, userData: '#cloud-config\n' };

  const post = (body: unknown): Promise<Response> => fetch(service.url('/v1/vms'), { method: 'POST', headers: service.headers, body: JSON.stringify(body) });
  const finished = async (jobId: string): Promise<JobAnswer> => {
    const deadline = Date.now() + 150_000;
    for (;;) {
      const job = (await (await fetch(service.url(`/v1/jobs/${jobId}?waitSeconds=60`), { headers: service.headers })).json()) as JobAnswer;
      if (job.state === 'completed' || job.state === 'failed' || Date.now() > deadline) {
        expect(job.state, JSON.stringify(job)).to.equal('completed');
        return job;
      }
    }
  };
  const simVm = async (vmid: number | undefined): Promise<SimVmView | undefined> => {
    const state = (await (await fetch(`${service.running.sim?.url ?? ''}/_sim/state`)).json()) as { vms: SimVmView[] };
    return state.vms.find((vm) => vm.vmid === vmid);
  };
  const accepted = async (body: unknown): Promise<{ jobId: string; changes?: string[]; existing: boolean }> => {
    const res = await post(body);
    expect(res.status, await res.clone().text()).to.equal(202);
    return (await res.json()) as { jobId: string; changes?: string[]; existing: boolean };
  };

  before(async () => {
    secretDir = mkdtempSync(join(tmpdir(), 'pvep-in-place-'));
    const secretFile = join(secretDir, 'webhook-secret');
    writeFileSync(secretFile, `${SECRET}\n`, { mode: 0o600 });
    receiver = webhookReceiver(await freePort(), SECRET);
    await receiver.listen();
    service = await startServiceOnSim('in-place', { overrides: { webhooks: { url: receiver.url, secretFile } } });
    const first = await accepted(base);
    await finished(first.jobId);
    await receiver.waitFor((r) => r.body.event === 'vm.ready' && r.body.jobId === first.jobId, 60_000);
  });

  after(async () => {
    await service?.close();
    await receiver?.close();
    rmSync(secretDir, { recursive: true, force: true });
  });

  it('more cores on the running VM: 202 with a new job, the VM restarted with them and running, the new spec recorded, vm.updated sent', async () => {
    const update = await accepted({ ...base, cores: 4 });
    expect(update).to.include({ existing: false }).and.to.have.property('changes').that.deep.equals(['cores']);
    const job = await finished(update.jobId);
    expect(job.result?.changed).to.deep.equal(['cores']);
    expect(job.logs.some((line) => line.includes('stopping and starting it')), job.logs.join('\n')).to.equal(true);
    const vm = await simVm(job.result?.vmid);
    expect(vm).to.include({ status: 'running' });
    expect(vm?.config.cores).to.equal(4);
    expect(vm?.pending).to.equal(undefined);
    const desired = (await (await fetch(service.url(`/v1/vms/${NAME}`), { headers: service.headers })).json()) as { spec?: Record<string, unknown>; generation?: number };
    expect(desired.spec).to.include({ cores: 4, memoryMiB: 2048, diskGiB: 10 });
    expect(desired.generation).to.equal(2);
    const hook = await receiver.waitFor((r) => r.body.jobId === update.jobId, 60_000);
    expect(hook.signatureValid).to.equal(true);
    expect(hook.body).to.deep.include({ event: 'vm.updated', name: NAME, job: 'create' });
    expect(hook.body.result).to.deep.include({ vmid: job.result?.vmid, changed: ['cores'] });

    // The same request again: the same job, nothing new.
    const again = await post({ ...base, cores: 4 });
    expect(again.status).to.equal(200);
    expect(await again.json()).to.include({ jobId: update.jobId, existing: true });
  });

  it('a larger disk on the running VM: grown live, no restart, vm.updated naming diskGiB', async () => {
    const update = await accepted({ ...base, cores: 4, diskGiB: 20 });
    expect(update.changes).to.deep.equal(['diskGiB']);
    const job = await finished(update.jobId);
    expect(job.result?.changed).to.deep.equal(['diskGiB']);
    expect(job.logs.some((line) => line.includes('stopping and starting it')), job.logs.join('\n')).to.equal(false);
    const vm = await simVm(job.result?.vmid);
    expect(vm).to.include({ status: 'running' });
    expect(String(vm?.config.scsi0)).to.contain('size=20G');
    const hook = await receiver.waitFor((r) => r.body.jobId === update.jobId, 60_000);
    expect(hook.body).to.deep.include({ event: 'vm.updated' });
    expect(hook.body.result).to.deep.include({ changed: ['diskGiB'] });
  });

  it('a smaller disk is 409 naming diskGiB; cores with other user-data is 409 naming userData only; the spec stays', async () => {
    for (const [body, fields] of [
      [{ ...base, cores: 4, diskGiB: 15 }, ['diskGiB']],
      [{ ...base, cores: 8, diskGiB: 20, userData: '#cloud-config\npackages: [htop]\n' }, ['userData']],
    ] as const) {
      const res = await post(body);
      expect(res.status).to.equal(409);
      const answer = (await res.json()) as { fields?: { field: string }[] };
      expect(answer.fields?.map((f) => f.field)).to.deep.equal(fields);
    }
    const desired = (await (await fetch(service.url(`/v1/vms/${NAME}`), { headers: service.headers })).json()) as { spec?: Record<string, unknown> };
    expect(desired.spec).to.include({ cores: 4, diskGiB: 20 });
  });
});
