// The simulator's HTTP(S) server (SPEC 8): HTTP/1.1 only (F18), HTTPS when
// given a certificate and key. Each API request goes: faults, latency,
// token (F22), route (501 when unknown), parameters against the official
// schema (400), handler; every request is recorded without its secrets.
// From the token on, a request holds workers of the nodes' pveproxy and
// pvedaemon when the daemon model is on (daemons.ts, SPEC 28); /_sim/
// never waits. Every node has a listener of its own, its pveproxy: a
// request enters the node whose URL it used.
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { boundConnections, serverConstructionOptions, type ListenerLimits } from '../listener-limits.js';
import { silentLogger, type Logger } from '../log.js';
import { SimAnswerError, bareError, paramError } from './answer-error.js';
import { checkToken } from './auth.js';
import { handleControl } from './control.js';
import { defaultFaultMessage, isBareStatus, type ErrorFault } from './faults.js';
import { readFormParams, sendData, sendError, sendJson, sendPlainError } from './http-io.js';
import { KEPT_ISO_MAX_BYTES } from './kept-isos.js';
import { MultipartError, parseContentType, readUpload } from './multipart.js';
import { checkRoutePermissions } from './permissions.js';
import { ROUTES, UPLOAD_ROUTE } from './routes.js';
import { ApiSchema, verifyParameters } from './schema.js';
import { SimReachability, type NodeListener } from './reachability.js';
import { Simulator, type SimulatorOptions } from './simulator.js';
import { texts } from './texts.js';
import type { CallRoute, HandlerWork } from './daemons.js';
import type { UploadedFile } from './handlers/context.js';

const API_PREFIX = '/api2/json';

export interface StartOptions extends Partial<Omit<SimulatorOptions, 'tokens'>> {
  /** Accepted API tokens (`user@realm!id=secret`). */
  tokens: string[];
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** PEM files; with both the simulator serves HTTPS. */
  tlsCert?: string;
  tlsKey?: string;
  /** An already loaded schema (tests start many simulators). */
  schema?: ApiSchema;
  /** sim.requestTimeoutMs: the longest wait for one whole request (ms). */
  requestTimeoutMs?: number;
  /** sim.idleTimeoutMs: a connection silent this long is closed (ms). */
  idleTimeoutMs?: number;
  /** sim.maxConnections: connections held at once; more are closed on arrival. */
  maxConnections?: number;
  /** Where a refused connection is reported. */
  logger?: Logger;
}

export interface RunningSimulator {
  /** Base URL, e.g. `http://127.0.0.1:8006` (the API is under /api2/json): the entry node's (the first node's) pveproxy. */
  url: string;
  port: number;
  /** Each node's own pveproxy: a request sent there enters that node (SPEC 28). The entry node's is `url`. */
  nodeUrls: Record<string, string>;
  sim: Simulator;
  /**
   * Takes the whole simulated cluster off the network (SPEC 32): every
   * node's listener closed, its open connections ended, so connections
   * are refused; the simulator goes on behind them.
   */
  offline(): Promise<void>;
  /** Listens again on the same ports, the same state behind them. */
  online(): Promise<void>;
  close(): Promise<void>;
}

const SIM_DEFAULTS = {
  nodes: ['pve1', 'pve2'],
  vms: 3,
  timeScale: 0.1,
  latencyMs: 0,
  cloneSeconds: 2,
  taskSeconds: 1,
  agentSeconds: 47,
  statdSeconds: 10,
  guestPorts: [22],
  proxyWorkers: 3,
  daemonWorkers: 3,
  requestCostMs: 20,
  requestCostPerKibMs: 0.05,
};

/**
 * The simulator's own listener limits (sim.*), looser than the web's:
 * a request queued behind the daemon model or a latency fault has its body
 * unread meanwhile, and the workers' pooled connections come to hundreds
 * under a chaos run. The keep-alive stays pveproxy-like 5 s.
 */
export const SIM_LISTENER_DEFAULTS: ListenerLimits = {
  requestTimeoutMs: 600_000,
  idleTimeoutMs: 600_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 10_000,
};

function simListenerLimits(options: StartOptions): ListenerLimits {
  return {
    requestTimeoutMs: options.requestTimeoutMs ?? SIM_LISTENER_DEFAULTS.requestTimeoutMs,
    idleTimeoutMs: options.idleTimeoutMs ?? SIM_LISTENER_DEFAULTS.idleTimeoutMs,
    keepAliveTimeoutMs: SIM_LISTENER_DEFAULTS.keepAliveTimeoutMs,
    maxConnections: options.maxConnections ?? SIM_LISTENER_DEFAULTS.maxConnections,
  };
}

let sharedSchema: ApiSchema | undefined;

function errorFaultAnswer(fault: ErrorFault): SimAnswerError {
  const status = fault.status ?? 500;
  const text = fault.message ?? defaultFaultMessage(status);
  return isBareStatus(status) ? bareError(status, text) : new SimAnswerError(status, `${text}\n`);
}

interface Parsed {
  params: Record<string, string>;
  upload?: UploadedFile;
}

/**
 * pveproxy gives no answer at all (its `die` only reaches a `warn`): the
 * connection is left until its idle timeout. The simulator closes it.
 */
class NoAnswer extends Error {
  override readonly name = 'NoAnswer';
}

/** authenticate_and_handle_request for the upload path (AnyEvent.pm, audit 1). */
async function readUploadParams(req: IncomingMessage, params: Record<string, string>): Promise<Parsed> {
  const length = Number(req.headers['content-length'] ?? 0);
  // Without a Content-Length (a chunked body) the parser never runs: the API sees the query only.
  if (!(length > 0)) {
    req.resume();
    return { params };
  }
  const contentType = req.headers['content-type'] ?? '';
  const { type, boundary } = parseContentType(contentType);
  if (boundary === undefined || type !== 'multipart/form-data') throw new NoAnswer(`upload 'Content-Type '${contentType}' not implemented`);
  if (params.tmpfilename !== undefined) throw new NoAnswer("'tmpfilename' query parameter is not allowed for file uploads");
  const body = await readUpload(req as AsyncIterable<Buffer>, boundary, length, KEPT_ISO_MAX_BYTES);
  const all = { ...params, ...body.params };
  const filename = body.params.filename ?? '';
  return { params: all, upload: { filename, size: body.size, sha256: body.sha256, ...(body.bytes && { bytes: body.bytes }) } };
}

async function readParams(req: IncomingMessage, routeKey: string, query: URLSearchParams): Promise<Parsed> {
  const params: Record<string, string> = Object.fromEntries(query);
  if (routeKey === UPLOAD_ROUTE && req.method === 'POST') return readUploadParams(req, params);
  // extract_params: the query overrides the body (AnyEvent.pm, audit 12b).
  if (req.method === 'POST' || req.method === 'PUT') return { params: { ...(await readFormParams(req)), ...params } };
  req.resume();
  return { params };
}

/** The path under /api2/json, or undefined for any other. */
function apiRelPath(path: string): string | undefined {
  return path.startsWith(`${API_PREFIX}/`) || path === API_PREFIX ? path.slice(API_PREFIX.length) || '/' : undefined;
}

interface CallInput {
  method: string;
  path: string;
  query: URLSearchParams;
  recorded: Record<string, string>;
  work: HandlerWork;
  entryNode: string;
}

class SimServer {
  constructor(
    readonly sim: Simulator,
    private readonly schema: ApiSchema,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse, entryNode: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim');
    const path = url.pathname;
    if (path.startsWith('/_sim/')) return handleControl(this.sim, req, res, path);
    const method = req.method ?? 'GET';
    const record = { at: new Date().toISOString(), method, path, params: {} as Record<string, string>, status: 0 };
    try {
      // A node that is down answers nothing on its own URL (SPEC 28): the client's connection fails.
      if (this.sim.faults.nodeOffline(entryNode)) return this.drop(req, record);
      const drop = this.sim.faults.dropFor(method, path);
      if (drop !== undefined && drop.afterEffect !== true) return this.drop(req, record);
      const delay = (this.sim.options.latencyMs ?? 0) + this.sim.faults.latencyMs;
      if (delay > 0) await sleep(delay);
      const work: HandlerWork = { qmpVms: 0, heldSeconds: 0 };
      const data = await this.sim.daemons.serve(
        this.callRoute(method, path, entryNode),
        async () => {
          const fault = this.sim.faults.errorFor(method, path);
          if (fault !== undefined) throw errorFaultAnswer(fault);
          return this.answer(req, { method, path, query: url.searchParams, recorded: record.params, work, entryNode });
        },
        () => work,
      );
      if (drop !== undefined) return this.drop(req, record);
      record.status = 200;
      sendData(res, data);
    } catch (err) {
      req.resume();
      if (err instanceof NoAnswer) return this.drop(req, record);
      if (err instanceof MultipartError) {
        record.status = 500;
        return sendPlainError(res, 500, err.text);
      }
      const answer = err instanceof SimAnswerError ? err : new SimAnswerError(500, `${String(err)}\n`);
      record.status = answer.status;
      sendError(res, answer);
    } finally {
      this.sim.record(record);
    }
  }

  /** Where the call runs, from its path alone (the daemon model places it before it runs). */
  private callRoute(method: string, path: string, entryNode: string): CallRoute {
    const relPath = apiRelPath(path);
    const match = relPath === undefined ? undefined : this.schema.match(method, relPath);
    if (match === undefined) return { entryNode };
    const pathNode = match.pathParams.node;
    return { entryNode, routeKey: `${method} ${match.template}`, pathNode, pathNodeOffline: pathNode !== undefined && this.sim.faults.nodeOffline(pathNode) };
  }

  private drop(req: IncomingMessage, record: { status: number }): void {
    record.status = 0;
    req.socket.destroy();
  }

  private async answer(req: IncomingMessage, call: CallInput): Promise<unknown> {
    const { method, path, query, recorded, work, entryNode } = call;
    const owner = checkToken(req.headers.authorization, this.sim.options.tokens);
    const relPath = apiRelPath(path);
    if (relPath === undefined) throw bareError(404, 'Not Found');
    const match = this.schema.match(method, relPath);
    const routeKey = match === undefined ? undefined : `${method} ${match.template}`;
    const handler = routeKey === undefined ? undefined : ROUTES[routeKey];
    if (match === undefined || routeKey === undefined || handler === undefined) {
      throw new SimAnswerError(501, texts.notImplemented(method, relPath));
    }
    const { params, upload } = await readParams(req, routeKey, query);
    Object.assign(recorded, params);
    for (const [name, value] of Object.entries(match.pathParams)) {
      if (params[name] !== undefined && params[name] !== value) {
        throw paramError({ [name]: 'duplicate parameter (already defined in URI) with conflicting values!' });
      }
      params[name] = value;
    }
    this.sim.settle();
    // pveproxy checks the route's permissions before it proxies (HTTPServer.pm rest_handler 174).
    checkRoutePermissions(match.permissions, params, this.sim.faults);
    // pveproxy proxies to the node before the handler checks parameters there.
    const node = match.pathParams.node;
    if (node !== undefined) {
      this.sim.state.node(node);
      if (this.sim.faults.nodeOffline(node)) throw bareError(595, 'No route to host');
    }
    verifyParameters(match.properties, params);
    const data = handler({ sim: this.sim, params, owner, properties: match.properties, upload, work, entryNode });
    return data;
  }
}

interface Listening extends NodeListener {
  url: string;
}

/** One node's pveproxy: a listener whose requests enter `entryNode`. */
async function listenFor(simServer: SimServer, entryNode: string, options: StartOptions, port: number): Promise<Listening> {
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    simServer.handle(req, res, entryNode).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { problems: [String(err)] });
      else res.destroy();
    });
  };
  const tls = options.tlsCert && options.tlsKey ? { cert: readFileSync(options.tlsCert), key: readFileSync(options.tlsKey) } : undefined;
  const limits = simListenerLimits(options);
  const serverOptions = serverConstructionOptions(limits);
  const server: Server = tls === undefined ? createHttpServer(serverOptions, listener) : createHttpsServer({ ...tls, ...serverOptions, ALPNProtocols: ['http/1.1'] }, listener);
  boundConnections(server, limits, options.logger ?? silentLogger(), 'simulator');
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const host = options.host ?? '127.0.0.1';
  const listenOn = (on: number): Promise<void> =>
    server.listening
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(on, host, () => {
            server.off('error', reject);
            resolve();
          });
        });
  await listenOn(port);
  const bound = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    node: entryNode,
    url: `${tls === undefined ? 'http' : 'https'}://${shownHost}:${bound}`,
    port: bound,
    listen: () => listenOn(bound),
    // Resolves also when not listening (an offline simulator's close).
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Starts a simulator; options default to the `sim` config section's
 * defaults (SPEC 7). The entry node listens on `port`; every other node
 * on a free port of its own (SPEC 28), all in `nodeUrls`.
 */
export async function startSimulator(options: StartOptions): Promise<RunningSimulator> {
  const schema = options.schema ?? (sharedSchema ??= ApiSchema.load());
  const sim = new Simulator({ ...SIM_DEFAULTS, ...definedOnly(options), tokens: options.tokens });
  const simServer = new SimServer(sim, schema);
  const listening: Listening[] = [];
  const reachability = new SimReachability(listening, options.logger ?? silentLogger());
  const closeAll = async (): Promise<void> => {
    reachability.end();
    await Promise.all([...listening.map((l) => l.close()), sim.guests.close()]);
  };
  const nodeUrls: Record<string, string> = {};
  try {
    const main = await listenFor(simServer, sim.entryNode, options, options.port ?? 0);
    listening.push(main);
    nodeUrls[sim.entryNode] = main.url;
    for (const node of sim.options.nodes.filter((n) => n !== sim.entryNode)) {
      const other = await listenFor(simServer, node, options, 0);
      listening.push(other);
      nodeUrls[node] = other.url;
    }
    sim.nodeUrls = nodeUrls;
    sim.reachability = reachability;
    return { url: main.url, port: main.port, nodeUrls, sim, offline: () => reachability.offline(), online: () => reachability.online(), close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined && v !== '')) as Partial<T>;
}
