// SPEC 29 end to end (issue 31): `all` in-process on the simulator,
// driven over HTTP. A create on a pooled network gets its address in the
// 202; with `phone-home` readiness its job completes when the simulated
// guest, booted from the seed, calls /v1/ready/<token>; with `tcp` when
// the guest's listener on the leased loopback address accepts. Neither
// asks the guest agent, and a create pays the steps of SPEC 13 once
// (the first create of a process also reads /cluster/status once, to
// learn the entry node: the calls are counted from the second); the
// agent, asked afterwards, reports exactly the leased address.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningAll } from '../../src/cli/all.js';
import { freePort } from '../support/free-port.js';
import { startServiceOnSim, type ServiceOnSim } from '../support/service-on-sim.js';

/** A /24 of this run's own in 127.77.0.0/16, so two runs at once never listen on one address and port. */
const NET = `127.77.${1 + Math.floor(Math.random() * 250)}`;
const POOL = { name: 'lab', bridge: 'vmbr0', cidr: `${NET}.0/24`, gateway: `${NET}.1`, dns: ['127.0.0.53'], first: `${NET}.10`, last: `${NET}.20` };
const NODES = [
  { name: 'pve1', template: 9001, isoStorage: 'proxy-seeds', bridge: 'vmbr0' },
  { name: 'pve2', template: 9002, isoStorage: 'proxy-seeds', bridge: 'vmbr0' },
];
const TEMPLATES = { pve1: 9001, pve2: 9002 };

interface SimRequest {
  at: string;
  method: string;
  path: string;
  status: number;
}

interface JobAnswer {
  state: string;
  result?: { address?: string; vmid: number; node: string };
  failedReason?: string;
  logs: string[];
}

/** A wait's reads of a task or a VM's status, which SPEC 26 counts apart from the steps' calls. */
function isPoll(r: SimRequest): boolean {
  return r.method === 'GET' && (/\/tasks\/[^/]+\/status$/.test(r.path) || /\/status\/current$/.test(r.path) || /\/tasks$/.test(r.path) || /\/cluster\/tasks$/.test(r.path));
}

const isAgentCall = (r: SimRequest): boolean => r.path.includes('/agent/');

describe('address pools and readiness without the agent, end to end on the simulator (SPEC 29)', function () {
  this.timeout(240_000);
  let service: ServiceOnSim;
  let running: RunningAll;
  let headers: Record<string, string>;
  let simUrl: string;

  const sim = async <T>(method: string, path: string): Promise<T> => (await (await fetch(`${simUrl}${path}`, { method })).json()) as T;

  async function createAndWait(body: Record<string, unknown>): Promise<{ accepted: { address?: string; addressPool?: string; jobId: string }; job: JobAnswer; requests: SimRequest[] }> {
    await quiet();
    await sim('DELETE', '/_sim/requests');
    const res = await fetch(`${running.web.url}/v1/vms`, { method: 'POST', headers, body: JSON.stringify(body) });
    expect(res.status, await res.clone().text()).to.equal(202);
    const accepted = (await res.json()) as { address?: string; addressPool?: string; jobId: string };
    const job = await ended(accepted.jobId);
    const { requests } = await sim<{ requests: SimRequest[] }>('GET', '/_sim/requests');
    return { accepted, job, requests };
  }

  /** The job once it has ended (the API's longest wait is 60 s, so asked again while it runs). */
  async function ended(jobId: string): Promise<JobAnswer> {
    for (;;) {
      const res = await fetch(`${running.web.url}/v1/jobs/${jobId}?waitSeconds=60`, { headers });
      expect(res.status, await res.clone().text()).to.equal(200);
      const job = (await res.json()) as JobAnswer;
      if (job.state === 'completed' || job.state === 'failed') return job;
    }
  }

  async function expectFrugal(requests: SimRequest[], job: JobAnswer): Promise<void> {
    const shown = `${requests.map((r) => `${r.at} ${r.method} ${r.path} ${r.status}`).join('\n')}\n${job.logs.join('\n')}\n${JSON.stringify(await sim('GET', '/_sim/guests'))}`;
    expect(requests.filter(isAgentCall), shown).to.deep.equal([]);
    expect(requests.filter((r) => !isPoll(r)), shown).to.have.length.at.most(8);
  }

  /** Until the simulator saw no request for a second: the service's start-up checks are not a create's calls. */
  async function quiet(): Promise<void> {
    let last = -1;
    for (;;) {
      const { requests } = await sim<{ requests: SimRequest[] }>('GET', '/_sim/requests');
      if (requests.length === last) return;
      last = requests.length;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  before(async () => {
    const guestPort = await freePort();
    service = await startServiceOnSim('address-pools', {
      publicUrl: true,
      overrides: {
        proxmox: {
          nodes: NODES,
          networks: [POOL],
          images: [
            { name: 'ph', readiness: 'phone-home', templates: TEMPLATES },
            { name: 'tcp', readiness: 'tcp', readinessPort: guestPort, templates: TEMPLATES },
          ],
          defaultImage: 'ph',
        },
        sim: { guestPorts: [guestPort] },
        // No health job or sweep in the request log between a create's 202 and its end.
        health: { everySeconds: 3600 },
        // A readiness that never comes fails in seconds, not after a real host's 300.
        budgets: { addressSeconds: 20 },
        reconciler: { everySeconds: 3600 },
      },
    });
    ({ running, headers } = service);
    simUrl = running.sim?.url ?? '';
  });

  after(async () => {
    await service?.close();
  });

  it('the simulated guest reports through its agent exactly the address the lease gave', async () => {
    const { accepted, job } = await createAndWait({ name: 'ph-2', node: 'pve2' });
    expect(job.state, `${job.failedReason ?? ''}\n${job.logs.join('\n')}\n${JSON.stringify(await sim('GET', '/_sim/guests'))}`).to.equal('completed');
    const token = readFileSync(join(service.dir, 'proxmox-token'), 'utf8').trim();
    const res = await fetch(`${simUrl}/api2/json/nodes/${job.result?.node ?? ''}/qemu/${job.result?.vmid ?? 0}/agent/network-get-interfaces`, { headers: { authorization: `PVEAPIToken=${token}` } });
    expect(res.status).to.equal(200);
    const { data } = (await res.json()) as { data: { result: { name: string; 'ip-addresses'?: { 'ip-address': string; prefix: number }[] }[] } };
    const reported = data.result.filter((i) => i.name !== 'lo').flatMap((i) => (i['ip-addresses'] ?? []).map((a) => `${a['ip-address']}/${a.prefix}`));
    expect(reported.filter((a) => !a.includes(':'))).to.deep.equal([`${accepted.address ?? ''}/24`]);
  });

  it('phone-home: the 202 carries the address, the job completes when the guest phones home, with no agent call and the steps\' calls only', async () => {
    const { accepted, job, requests } = await createAndWait({ name: 'ph-1', node: 'pve1' });
    expect(accepted).to.include({ address: `${NET}.11`, addressPool: 'lab' });
    expect(job.state, `${job.failedReason ?? ''}\n${job.logs.join('\n')}\n${JSON.stringify(await sim('GET', '/_sim/guests'))}`).to.equal('completed');
    expect(job.result?.address).to.equal(accepted.address);
    await expectFrugal(requests, job);
    const guests = await sim<{ phoneHomes: { vmid: number; status?: number }[] }>('GET', '/_sim/guests');
    expect(guests.phoneHomes.filter((p) => p.vmid === job.result?.vmid).map((p) => p.status)).to.deep.equal([204]);
    const vm = (await (await fetch(`${running.web.url}/v1/vms/ph-1`, { headers })).json()) as { address?: string };
    expect(vm.address).to.equal(accepted.address);
  });

  it('tcp: the job completes when the guest accepts on the leased address, with no agent call and the steps\' calls only', async () => {
    const { accepted, job, requests } = await createAndWait({ name: 'tcp-1', node: 'pve1', image: 'tcp' });
    expect(accepted.address).to.match(new RegExp(`^${NET.replace(/\./g, '\\.')}\\.\\d+$`));
    expect(job.state, `${job.failedReason ?? ''}\n${job.logs.join('\n')}`).to.equal('completed');
    expect(job.result?.address).to.equal(accepted.address);
    await expectFrugal(requests, job);
  });

  it('a delete gives the address back: it rests its cooldown, so the next create gets another', async () => {
    const del = await fetch(`${running.web.url}/v1/vms/ph-1`, { method: 'DELETE', headers: { authorization: headers.authorization ?? '' } });
    expect(del.status).to.equal(202);
    const { jobId } = (await del.json()) as { jobId: string };
    const gone = await ended(jobId);
    expect(gone.state, gone.failedReason).to.equal('completed');
    const { accepted, job } = await createAndWait({ name: 'ph-4', node: 'pve1' });
    expect(job.state, job.failedReason).to.equal('completed');
    expect(accepted.address).to.not.equal(`${NET}.11`);
  });
});
