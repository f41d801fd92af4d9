// The daemon-slot decorator of the seam (SPEC 28), with a recording
// slots stand-in: which node each protected call counts against, which
// calls pass untouched, when a slot is freed and when it is kept for the
// call's worst case.
import { expect } from 'chai';
import type { CallOptions, ProxmoxApi, UploadSource } from '../../src/proxmox/api.js';
import { ProxmoxApiError } from '../../src/proxmox/api-error.js';
import { AGENT_WORST_CASE_MS, daemonSlotApi } from '../../src/proxmox/daemon-slotted-api.js';
import type { DaemonSlot, DaemonSlots } from '../../src/proxmox/daemon-slots.js';

interface Taken {
  node: string;
  call: string;
  sent: boolean;
  end?: 'answered' | number;
}

function recordingSlots(taken: Taken[]): DaemonSlots {
  return {
    take(node, call) {
      const record: Taken = { node, call, sent: false };
      taken.push(record);
      const slot: DaemonSlot = {
        sent: () => void (record.sent = true),
        answered: () => void (record.end ??= 'answered'),
        abandoned: (worstCaseMs) => void (record.end ??= worstCaseMs),
      };
      return Promise.resolve(slot);
    },
    close: () => Promise.resolve(),
  };
}

/** A seam whose every call sends (calls its onSend, the last argument's) and then ends as `outcome` says. */
function stubApi(outcome: () => Promise<unknown>): ProxmoxApi {
  return new Proxy({} as ProxmoxApi, {
    get:
      () =>
      (...args: unknown[]): Promise<unknown> => {
        const last = args.at(-1);
        if (typeof last === 'object' && last !== null) (last as CallOptions).onSend?.();
        return outcome();
      },
  });
}

const source: UploadSource = { size: 0, open: () => { throw new Error('not read'); } };
const apiError = (status: number): ProxmoxApiError => new ProxmoxApiError({ status, reason: 'x', message: 'x', method: 'GET', path: '/x' });
const WORST = { agentMs: AGENT_WORST_CASE_MS, otherMs: 60_000 };

describe('the daemon-slot decorator of the seam (SPEC 28)', () => {
  it('counts protected calls against their {node} and lets pveproxy calls through without a slot', async () => {
    const taken: Taken[] = [];
    const api = daemonSlotApi(stubApi(() => Promise.resolve({})), recordingSlots(taken), WORST);
    await api.clone('pve2', 9001, { newid: 100001, name: 'a', description: '', full: true });
    await api.getConfig('pve1', 100001);
    await api.nodeTasks('pve1', {});
    await api.taskStatus('pve1', 'UPID:pve1:1:1:1:qmstart:100001:root@pam:');
    await api.clusterResources('vm');
    expect(taken.map(({ node, call, sent, end }) => ({ node, call, sent, end }))).to.deep.equal([
      { node: 'pve2', call: 'clone', sent: true, end: 'answered' },
      { node: 'pve1', call: 'taskStatus', sent: true, end: 'answered' },
    ]);
  });

  it('frees the slot on any answer of Proxmox, and keeps it for the worst case on no answer or a 596', async () => {
    const taken: Taken[] = [];
    const failWith = (err: Error): ProxmoxApi => daemonSlotApi(stubApi(() => Promise.reject(err)), recordingSlots(taken), WORST);
    await failWith(apiError(500)).agentInterfaces('pve1', 100001).catch(() => undefined);
    await failWith(apiError(596)).agentInterfaces('pve1', 100001).catch(() => undefined);
    await failWith(new Error('aborted')).agentInterfaces('pve1', 100001).catch(() => undefined);
    await failWith(new Error('timed out')).start('pve1', 100001).catch(() => undefined);
    expect(taken.map((t) => t.end)).to.deep.equal(['answered', AGENT_WORST_CASE_MS, AGENT_WORST_CASE_MS, 60_000]);
    expect(AGENT_WORST_CASE_MS).to.equal(10_000);
  });

  it('counts an upload against the node its request entered, learned from its UPID, not against {node}', async () => {
    const taken: Taken[] = [];
    const api = daemonSlotApi(stubApi(() => Promise.resolve('UPID:pve1:000A:000B:6500:imgcopy::root@pam!t:')), recordingSlots(taken), WORST);
    await api.upload('pve3', 'local', 'seed.iso', source);
    await api.upload('pve3', 'local', 'seed.iso', source);
    expect(taken.map((t) => t.node)).to.deep.equal(['pve3', 'pve1']);
  });
});
