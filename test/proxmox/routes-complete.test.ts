// Issue 28: adding a Proxmox call to the seam touches the interface
// (api.ts), the routes table (routes.ts), the HTTP client (http-api.ts),
// the fake (test/fakes) and one simulator handler (src/sim/routes.ts), and
// no decorator: decorate.ts builds every decorated method from the table.
// A method on the interface without a route, or a route without one, does
// not compile (ROUTES is a mapped type over the interface's keys); mocha
// does not type-check, so the same gaps are looked for here at run time,
// with where each method takes its CallOptions and what its route says it
// names. routes-daemon.test.ts and schema.test.ts check the same table
// against the official schema (vendor/pve-api/apidata.json).
import { expect } from 'chai';
import type { CallOptions, ProxmoxApi } from '../../src/proxmox/api.js';
import { decorateApi } from '../../src/proxmox/decorate.js';
import type { SeamCall } from '../../src/proxmox/decorate.js';
import { observeApi } from '../../src/proxmox/observed-api.js';
import { ROUTES, ROUTE_NAMES, fillPath, pathValuesOf } from '../../src/proxmox/routes.js';
import type { CallIds, RouteName } from '../../src/proxmox/routes.js';
import { ROUTES as SIM_ROUTES } from '../../src/sim/routes.js';
import { FakeProxmox } from '../fakes/fake-proxmox.js';
import { captureLogger } from '../support/capture-logger.js';
import { startReplayServer } from '../support/replay-server.js';
import { sample } from './route-samples.js';
import { workspace } from './support.js';
import type { Workspace } from './support.js';

type AnyCall = (...args: unknown[]) => Promise<unknown>;

/** What the route says the sample call names. */
const idsOf = (name: RouteName): CallIds => (ROUTES[name].ids as (...args: unknown[]) => CallIds)(...sample(name));

/** The names of the methods an object has, own or from its class. */
function methodsOf(api: object): string[] {
  const names = new Set(Object.keys(api));
  for (let proto: unknown = Object.getPrototypeOf(api); proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) if (name !== 'constructor') names.add(name);
  }
  return [...names].filter((name) => typeof (api as Record<string, unknown>)[name] === 'function').sort();
}

/** An inner API that notes each call it gets and answers with its route's name. */
function recordingApi(received: { name: string | symbol; args: unknown[] }[]): ProxmoxApi {
  return new Proxy({} as ProxmoxApi, {
    get:
      (_target, name) =>
      (...args: unknown[]) => {
        received.push({ name, args });
        return Promise.resolve(`answer of ${String(name)}`);
      },
  });
}

describe('every route has its method, its client, its fake and its simulator handler (issue 28)', () => {
  let ws: Workspace;
  let client: ProxmoxApi;
  before(() => {
    ws = workspace();
    client = ws.client('http://127.0.0.1:9');
  });
  after(() => ws.remove());
  const fake = new FakeProxmox();
  const sorted = [...ROUTE_NAMES].sort();

  it('the HTTP client has one method per route, and none else (a seam method without a route, or a route without a method)', () => {
    expect(methodsOf(client)).to.deep.equal(sorted);
  });

  it('the fake (test/fakes) has a method for every route', () => {
    expect(sorted.filter((name) => !methodsOf(fake).includes(name))).to.deep.equal([]);
  });

  it('the simulator has a handler for each route\'s method and template, and none for a route the client lacks', () => {
    const routes = sorted.map((name) => `${ROUTES[name].method} ${ROUTES[name].template}`);
    expect(routes.filter((route) => SIM_ROUTES[route] === undefined), 'routes without a simulator handler').to.deep.equal([]);
    expect(Object.keys(SIM_ROUTES).filter((route) => !routes.includes(route)), 'simulator handlers without a route').to.deep.equal([]);
  });

  it('each route\'s arity is where the client and the fake take their CallOptions', () => {
    const misplaced = sorted.flatMap((name) => {
      const at = ROUTES[name].arity;
      const clientAt = (client[name] as AnyCall).length - 1;
      const fakeAt = (fake[name] as AnyCall).length - 1;
      return clientAt === at && fakeAt === at ? [] : [`${name}: arity ${at}, client ${clientAt}, fake ${fakeAt}`];
    });
    expect(misplaced).to.deep.equal([]);
  });

  it('each route names {node} exactly when its template has it, and every value its template needs', () => {
    const problems = sorted.flatMap((name) => {
      const ids = idsOf(name);
      const needsNode = ROUTES[name].template.includes('{node}');
      if ((ids.node !== undefined) !== needsNode) return [`${name}: node ${String(ids.node)}`];
      try {
        fillPath(ROUTES[name].template, pathValuesOf(ids));
        return [];
      } catch (err) {
        return [`${name}: ${(err as Error).message}`];
      }
    });
    expect(problems).to.deep.equal([]);
  });
});

describe('the one decorator builds every method from the routes table (issue 28)', () => {
  for (const name of ROUTE_NAMES) {
    it(`${name}: the around function gets its name, route, identifiers and CallOptions; run calls through with the same arguments and the options given to it`, async () => {
      const received: { name: string | symbol; args: unknown[] }[] = [];
      const seen: SeamCall[] = [];
      const given: CallOptions = { via: 'pv1-2' };
      const api = decorateApi(recordingApi(received), (call, run) => {
        seen.push(call);
        return run(given);
      });
      const opts: CallOptions = { signal: new AbortController().signal };
      expect(await (api[name] as AnyCall)(...sample(name), opts)).to.equal(`answer of ${name}`);
      expect(seen).to.have.length(1);
      expect(seen[0]).to.deep.include({ name, route: ROUTES[name], opts });
      expect(seen[0]?.ids).to.deep.equal(idsOf(name));
      expect(received).to.deep.equal([{ name, args: [...sample(name), given] }]);
    });
  }

  it('logs, for every route, the path the client sent (the table\'s identifiers fill the same template)', async () => {
    const ws = workspace();
    const server = await startReplayServer(() => 'put_config_response');
    try {
      const { logger, records } = captureLogger();
      const api = observeApi(ws.client(server.url), logger);
      for (const name of ROUTE_NAMES) await (api[name] as AnyCall)(...sample(name));
      const logged = records.map((line) => `${String(line.call)} ${String(line.method)} ${String(line.path)}`);
      const sent = server.requests.map((request, i) => `${ROUTE_NAMES[i] ?? '?'} ${request.method} ${request.rawPath.replace(/^\/api2\/json/, '')}`);
      expect(logged).to.deep.equal(sent);
    } finally {
      await server.close();
      ws.remove();
    }
  });
});
