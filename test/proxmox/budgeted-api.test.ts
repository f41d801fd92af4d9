// The budget decorator of the seam (SPEC 26): every Proxmox call takes
// one slot, named for its route and with its job's signal, before its
// request goes; a refused slot (a cancelled job) sends nothing.
import { expect } from 'chai';
import type { CallOptions, ProxmoxApi } from '../../src/proxmox/api.js';
import { budgetApi } from '../../src/proxmox/budgeted-api.js';
import type { FinishRequest, RequestBudget } from '../../src/proxmox/request-budget.js';
import { ROUTES } from '../../src/proxmox/routes.js';
import type { RouteName } from '../../src/proxmox/routes.js';
import { sample } from './route-samples.js';

const ROUTE_NAMES = Object.keys(ROUTES) as RouteName[];

type AnyCall = (...args: unknown[]) => Promise<unknown>;

/** An inner API that notes each call it gets and answers with its route's name. */
function recordingApi(received: { route: string; args: unknown[] }[]): ProxmoxApi {
  const api: Partial<Record<RouteName, AnyCall>> = {};
  for (const route of ROUTE_NAMES) {
    api[route] = (...args: unknown[]) => {
      received.push({ route, args });
      return Promise.resolve(`answer of ${route}`);
    };
  }
  return api as unknown as ProxmoxApi;
}

/** A budget whose slots the test hands out one by one. */
function heldBudget(): { budget: RequestBudget; asked: { call: string; signal?: AbortSignal }[]; finished: string[]; release(err?: Error): void } {
  const asked: { call: string; signal?: AbortSignal }[] = [];
  const finished: string[] = [];
  const pending: { resolve(finish: FinishRequest): void; reject(err: Error): void; call: string }[] = [];
  return {
    asked,
    finished,
    budget: {
      take: (call, signal) =>
        new Promise<FinishRequest>((resolve, reject) => {
          asked.push({ call, ...(signal ? { signal } : {}) });
          pending.push({ resolve, reject, call });
        }),
      close: () => Promise.resolve(),
    },
    release(err) {
      const next = pending.shift();
      if (err) next?.reject(err);
      else next?.resolve(() => finished.push(next.call));
    },
  };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('budgetApi, the request budget around the seam (SPEC 26)', () => {
  for (const route of ROUTE_NAMES) {
    it(`${route}: waits for its slot, named ${route} with the job's signal, calls through with the same arguments, then hands the slot back`, async () => {
      const received: { route: string; args: unknown[] }[] = [];
      const held = heldBudget();
      const api = budgetApi(recordingApi(received), held.budget);
      const opts: CallOptions = { signal: new AbortController().signal };
      const answer = (api[route] as AnyCall)(...sample(route), opts);
      await turn();
      expect(held.asked).to.deep.equal([{ call: route, signal: opts.signal }]);
      expect(received, 'sent before its slot').to.deep.equal([]);
      held.release();
      expect(await answer).to.equal(`answer of ${route}`);
      expect(received).to.deep.equal([{ route, args: [...sample(route), opts] }]);
      expect(held.finished).to.deep.equal([route]);
    });
  }

  it('hands the slot back when the call fails too', async () => {
    const held = heldBudget();
    const failing = { ...recordingApi([]), version: () => Promise.reject(new Error('connect ECONNREFUSED')) };
    const answer = budgetApi(failing, held.budget).version().then(
      () => undefined,
      (e: unknown) => e,
    );
    await turn();
    held.release();
    expect(await answer).to.have.property('message', 'connect ECONNREFUSED');
    expect(held.finished).to.deep.equal(['version']);
  });

  it('sends nothing when the slot is refused, and rejects with the refusal', async () => {
    const received: { route: string; args: unknown[] }[] = [];
    const held = heldBudget();
    const api = budgetApi(recordingApi(received), held.budget);
    const answer = api.clone('pve1', 9001, { newid: 100, name: 'a', description: 'd', full: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await turn();
    const reason = new Error('job cancelled');
    held.release(reason);
    expect(await answer).to.equal(reason);
    expect(received).to.deep.equal([]);
  });
});

describe('budgetApi with a budget per address (SPEC 28: a node with its own apiUrl is paced apart)', () => {
  /** A budget that lets every call go at once and notes which calls it paced. */
  function openBudget(paced: string[]): RequestBudget {
    return { take: (call) => (paced.push(call), Promise.resolve(() => undefined)), close: () => Promise.resolve() };
  }

  it('takes each call for a node with its own address from that address\'s budget, every other call, and a call with no node, from proxmox.url\'s; `via` routes a call with no node', async () => {
    const main: string[] = [];
    const pve2: string[] = [];
    const budgets = { main: openBudget(main), pve2: openBudget(pve2) };
    const api = budgetApi(recordingApi([]), (node) => (node === 'pve2' ? budgets.pve2 : budgets.main));
    await api.clone('pve2', 9002, { newid: 100, name: 'a', description: 'd', full: true });
    await api.upload('pve2', 'proxy-seeds', 'a.iso', { size: 0, open: () => undefined } as never);
    await api.taskStatus('pve2', 'UPID:pve2:1:2:3:qmclone:100:root@pam:');
    await api.clone('pve1', 9001, { newid: 101, name: 'b', description: 'd', full: true });
    await api.clusterResources('vm');
    await api.nodes({ via: 'pve2' });
    expect(pve2).to.deep.equal(['clone', 'upload', 'taskStatus', 'nodes']);
    expect(main).to.deep.equal(['clone', 'clusterResources']);
  });
});
