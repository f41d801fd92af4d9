// The daemon-slot decorator of the seam (SPEC 28), with a recording
// slots stand-in: which node each protected call counts against, which
// calls pass untouched, when a slot is freed and when it is kept for the
// call's worst case.
import { expect } from 'chai';
import { Readable } from 'node:stream';
import type { CallOptions, ProxmoxApi, UploadSource } from '../../src/proxmox/api.js';
import { ProxmoxApiError } from '../../src/proxmox/api-error.js';
import { classifyError } from '../../src/proxmox/classify.js';
import { daemonSlotApi } from '../../src/proxmox/daemon-slotted-api.js';
import { STATUS_RETRY_MS } from '../../src/proxmox/entry-nodes.js';
import type { EntryNodeOptions } from '../../src/proxmox/daemon-slotted-api.js';
import type { DaemonSlot, DaemonSlots } from '../../src/proxmox/daemon-slots.js';
import { FakeProxmox, SEED_STORAGE } from '../fakes/fake-proxmox.js';
import { fakeErrors } from '../fakes/fake-errors.js';
import { captureLogger } from '../support/capture-logger.js';

interface Taken {
  node: string;
  call: string;
  worstCaseMs: number;
  sent: boolean;
  end?: 'answered' | 'sent' | 'givenUp';
}

function recordingSlots(taken: Taken[]): DaemonSlots {
  return {
    take(node, call, worstCaseMs) {
      const record: Taken = { node, call, worstCaseMs, sent: false };
      taken.push(record);
      const slot: DaemonSlot = {
        sent: () => void (record.sent = true),
        answered: () => void (record.end ??= 'answered'),
        abandoned: (from) => void (record.end ??= from),
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

/** Every node through one address; the status call holds no slot (no nodes listed), so only the calls under test are recorded. */
const ONE_ADDRESS: EntryNodeOptions = { addressOf: () => 'https://127.0.0.1:8006', nodes: [] };

describe('the daemon-slot decorator of the seam (SPEC 28)', () => {
  it('counts protected calls against their {node} and lets pveproxy calls through without a slot', async () => {
    const taken: Taken[] = [];
    const api = daemonSlotApi(stubApi(() => Promise.resolve({})), recordingSlots(taken), 1, ONE_ADDRESS);
    await api.clone('pve2', 9001, { newid: 100001, name: 'a', description: '', full: true });
    await api.getConfig('pve1', 100001);
    await api.nodeTasks('pve1', {});
    await api.taskStatus('pve1', 'UPID:pve1:1:1:1:qmstart:100001:root@pam:');
    await api.clusterResources('vm');
    expect(taken.map(({ node, call, sent, end }) => ({ node, call, sent, end }))).to.deep.equal([
      { node: 'pve2', call: 'clone', sent: true, end: 'answered' },
      { node: 'pve1', call: 'taskStatus', sent: true, end: 'answered' },
    ]);
    expect(taken.map((t) => t.worstCaseMs)).to.deep.equal([15_000, 2_000]);
  });

  it('frees the slot on any answer of Proxmox; keeps it from the send on no answer, and from the 596 after one', async () => {
    const taken: Taken[] = [];
    const failWith = (err: Error): ProxmoxApi => daemonSlotApi(stubApi(() => Promise.reject(err)), recordingSlots(taken), 1, ONE_ADDRESS);
    await failWith(apiError(500)).agentInterfaces('pve1', 100001).catch(() => undefined);
    await failWith(apiError(596)).agentInterfaces('pve1', 100001).catch(() => undefined);
    await failWith(new Error('aborted')).agentInterfaces('pve1', 100001).catch(() => undefined);
    await failWith(new Error('timed out')).start('pve1', 100001).catch(() => undefined);
    await failWith(new Error('connection reset')).upload('pve1', 'local', 'seed.iso', source).catch(() => undefined);
    expect(taken.map((t) => [t.call, t.worstCaseMs, t.end])).to.deep.equal([
      ['agentInterfaces', 10_000, 'answered'],
      ['agentInterfaces', 10_000, 'givenUp'],
      ['agentInterfaces', 10_000, 'sent'],
      ['start', 15_000, 'sent'],
      // pvedaemon starts an upload only once it has the whole body: its worst case counts from when the client stopped sending.
      ['upload', 15_000, 'givenUp'],
    ]);
  });

  it('frees the slot at once when the connection was refused: the request never reached pveproxy, so no pvedaemon runs it', async () => {
    const taken: Taken[] = [];
    const failWith = (code: string): ProxmoxApi => daemonSlotApi(stubApi(() => Promise.reject(classifyError(Object.assign(new Error(code), { code })))), recordingSlots(taken), 1, ONE_ADDRESS);
    await failWith('ECONNREFUSED').clone('pve1', 9001, { newid: 100001, name: 'a', description: '', full: true }).catch(() => undefined);
    await failWith('ECONNRESET').clone('pve1', 9001, { newid: 100001, name: 'a', description: '', full: true }).catch(() => undefined);
    expect(taken.map((t) => t.end)).to.deep.equal(['answered', 'sent']);
  });

  it('scales every worst case by proxmox.daemonSlotWorstCaseScale (the simulator\'s sim.timeScale)', async () => {
    const taken: Taken[] = [];
    const api = daemonSlotApi(stubApi(() => Promise.resolve({})), recordingSlots(taken), 0.01, ONE_ADDRESS);
    await api.agentInterfaces('pve1', 100001);
    await api.storages('pve1');
    expect(taken.map((t) => t.worstCaseMs)).to.deep.equal([100, 300]);
  });

  it('without a usable /cluster/status answer, counts an upload against the node its request entered, learned from its UPID', async () => {
    const taken: Taken[] = [];
    const api = daemonSlotApi(stubApi(() => Promise.resolve('UPID:pve1:000A:000B:6500:imgcopy::root@pam!t:')), recordingSlots(taken), 1, ONE_ADDRESS);
    await api.upload('pve3', 'local', 'seed.iso', source);
    await api.upload('pve3', 'local', 'seed.iso', source);
    expect(taken.map((t) => t.node)).to.deep.equal(['pve3', 'pve1']);
  });
});

describe('the daemon slots learn the entry node from /cluster/status before the first upload (SPEC 28)', () => {
  const THREE = [{ name: 'pve1' }, { name: 'pve2' }, { name: 'pve3' }];
  const seed = (n: number): UploadSource => ({ size: 1, open: () => Readable.from([Buffer.from([n])]) });

  it('counts the first uploads of a cold burst for pve2 and pve3 against pve1, the node proxmox.url enters, asking the status once', async () => {
    const pve = new FakeProxmox({ nodes: THREE, apiNode: 'pve1' });
    const taken: Taken[] = [];
    const api = daemonSlotApi(pve, recordingSlots(taken), 1, { addressOf: () => 'https://127.0.0.1:8006', nodes: ['pve3', 'pve1', 'pve2'] });
    await Promise.all(['pve2', 'pve3', 'pve2', 'pve3'].map((node, i) => api.upload(node, SEED_STORAGE, `s${i}.iso`, seed(i))));
    expect(pve.count('clusterStatus')).to.equal(1);
    // The status call runs on the node it is asked to find out: it holds one slot on each, taken in one order.
    expect(taken.filter((t) => t.call === 'clusterStatus').map((t) => [t.node, t.end])).to.deep.equal([
      ['pve1', 'answered'],
      ['pve2', 'answered'],
      ['pve3', 'answered'],
    ]);
    expect(taken.filter((t) => t.call === 'upload').map((t) => t.node)).to.deep.equal(['pve1', 'pve1', 'pve1', 'pve1']);
  });

  it('learns per address: a node with its own apiUrl asks through it and counts its uploads there; nodes sharing proxmox.url ask once', async () => {
    // Without apiNode the fake lets each node be its own address: via names the node entered.
    const pve = new FakeProxmox({ nodes: THREE });
    const taken: Taken[] = [];
    const addressOf = (node: string): string => (node === 'pve2' ? 'https://127.0.0.1:8007' : 'https://127.0.0.1:8006');
    const api = daemonSlotApi(pve, recordingSlots(taken), 1, { addressOf, nodes: [] });
    await api.upload('pve2', SEED_STORAGE, 'a.iso', seed(1));
    await api.upload('pve1', SEED_STORAGE, 'b.iso', seed(2));
    await api.upload('pve3', SEED_STORAGE, 'c.iso', seed(3));
    expect(pve.callsTo('clusterStatus').map((c) => c.via)).to.deep.equal(['pve2', 'pve1']);
    expect(taken.filter((t) => t.call === 'upload').map((t) => t.node)).to.deep.equal(['pve2', 'pve1', 'pve1']);
  });

  it('when /cluster/status is refused (no Sys.Audit on /), counts the first upload against its target, warns once naming the privilege, then learns from the UPID', async () => {
    const pve = new FakeProxmox({ nodes: THREE, apiNode: 'pve1' });
    pve.failNext('clusterStatus', fakeErrors.forbidden('/', 'Sys.Audit'));
    const taken: Taken[] = [];
    const { logger, records } = captureLogger('warn');
    const api = daemonSlotApi(pve, recordingSlots(taken), 1, { addressOf: () => 'https://127.0.0.1:8006', nodes: ['pve1'], logger });
    await api.upload('pve3', SEED_STORAGE, 'a.iso', seed(1));
    await api.upload('pve3', SEED_STORAGE, 'b.iso', seed(2));
    await api.upload('pve2', SEED_STORAGE, 'c.iso', seed(3));
    expect(pve.count('clusterStatus'), 'asked once per address, even after a refusal').to.equal(1);
    expect(taken.filter((t) => t.call === 'upload').map((t) => t.node)).to.deep.equal(['pve3', 'pve1', 'pve1']);
    expect(taken.filter((t) => t.call === 'clusterStatus').map((t) => [t.node, t.end])).to.deep.equal([['pve1', 'answered']]);
    expect(records).to.have.length(1);
    expect(String(records[0]?.msg)).to.include('Sys.Audit');
  });

  it('after a failed status call and no upload through, asks again once STATUS_RETRY_MS passed, so a later cold burst counts against the entry node (not cached for the process)', async () => {
    const pve = new FakeProxmox({ nodes: THREE, apiNode: 'pve1' });
    // Proxmox unreachable while the worker starts: the status call and the uploads meanwhile fail, so no UPID teaches the node.
    pve.failNext('clusterStatus', fakeErrors.noRouteToHost());
    pve.failNext('upload', fakeErrors.noRouteToHost(), 2);
    const taken: Taken[] = [];
    let now = 0;
    const { logger, records } = captureLogger('warn');
    const api = daemonSlotApi(pve, recordingSlots(taken), 1, { addressOf: () => 'https://127.0.0.1:8006', nodes: [], logger, now: () => now });
    await api.upload('pve3', SEED_STORAGE, 'a.iso', seed(1)).catch(() => undefined);
    now = STATUS_RETRY_MS - 1;
    await api.upload('pve3', SEED_STORAGE, 'b.iso', seed(2)).catch(() => undefined);
    expect(pve.count('clusterStatus'), 'not asked again before the retry time').to.equal(1);
    now = STATUS_RETRY_MS;
    await Promise.all(['pve2', 'pve3'].map((node, i) => api.upload(node, SEED_STORAGE, `c${i}.iso`, seed(i))));
    expect(pve.count('clusterStatus')).to.equal(2);
    expect(taken.filter((t) => t.call === 'upload').map((t) => t.node)).to.deep.equal(['pve3', 'pve3', 'pve1', 'pve1']);
    expect(records).to.have.length(1);
  });

  it('through a node\'s own apiUrl the status call holds that node\'s slot alone; through proxmox.url, shared, one on each node', async () => {
    const pve = new FakeProxmox({ nodes: THREE });
    const taken: Taken[] = [];
    const addressOf = (node: string): string => (node === 'pve2' ? 'https://127.0.0.1:8007' : 'https://127.0.0.1:8006');
    const api = daemonSlotApi(pve, recordingSlots(taken), 1, { addressOf, nodes: ['pve1', 'pve2', 'pve3'] });
    await api.upload('pve2', SEED_STORAGE, 'a.iso', seed(1));
    await api.upload('pve3', SEED_STORAGE, 'b.iso', seed(2));
    expect(taken.filter((t) => t.call === 'clusterStatus').map((t) => t.node)).to.deep.equal(['pve2', 'pve1', 'pve2', 'pve3']);
  });

  it('a node whose slots are all held does not hold the first upload: the status call gives up at its bound, frees what it took, and the upload counts against its target', async () => {
    const pve = new FakeProxmox({ nodes: THREE, apiNode: 'pve1' });
    const taken: Taken[] = [];
    const recording = recordingSlots(taken);
    // pve3's slots are held by calls kept to their worst case: a take there waits until its signal ends it.
    const stuckOnPve3: DaemonSlots = {
      take: (node, call, worstCaseMs, signal) =>
        node !== 'pve3'
          ? recording.take(node, call, worstCaseMs, signal)
          : new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true })),
      close: () => Promise.resolve(),
    };
    const { logger, records } = captureLogger('warn');
    const api = daemonSlotApi(pve, stuckOnPve3, 1, { addressOf: () => 'https://127.0.0.1:8006', nodes: ['pve1', 'pve2', 'pve3'], logger, statusWaitMs: 50 });
    await api.upload('pve2', SEED_STORAGE, 'a.iso', seed(1));
    expect(pve.count('clusterStatus'), 'never sent: its slots were not all free').to.equal(0);
    expect(taken.filter((t) => t.call === 'clusterStatus').map((t) => [t.node, t.end])).to.deep.equal([
      ['pve1', 'answered'],
      ['pve2', 'answered'],
    ]);
    expect(taken.filter((t) => t.call === 'upload').map((t) => t.node)).to.deep.equal(['pve2']);
    expect(records).to.have.length(1);
  });

  it('a caller that gives up while the status is asked leaves the call to the others', async () => {
    const pve = new FakeProxmox({ nodes: THREE, apiNode: 'pve1' });
    let release = (): void => undefined;
    pve.on('clusterStatus', () => new Promise<void>((resolve) => (release = resolve)));
    const taken: Taken[] = [];
    const api = daemonSlotApi(pve, recordingSlots(taken), 1, { addressOf: () => 'https://127.0.0.1:8006', nodes: [] });
    const job = new AbortController();
    const first = api.upload('pve2', SEED_STORAGE, 'a.iso', seed(1), { signal: job.signal }).then(() => 'done', () => 'aborted');
    const second = api.upload('pve3', SEED_STORAGE, 'b.iso', seed(2));
    await new Promise((resolve) => setImmediate(resolve));
    job.abort(new Error('job cancelled'));
    expect(await first).to.equal('aborted');
    release();
    await second;
    expect(pve.count('clusterStatus')).to.equal(1);
    expect(taken.map((t) => [t.call, t.node])).to.deep.equal([['upload', 'pve1']]);
  });
});
