// The got implementation of the seam (SPEC 18). Every call takes the
// token from the token file (checked at most once a second), sends
// `Authorization: PVEAPIToken=...` over HTTP/1.1 only, and turns a
// non-2xx answer into a ProxmoxApiError (SPEC 17, F1) and a transport
// failure into a classified error. got's own retry is off: BullMQ
// retries jobs.
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { got } from 'got';
import type { Response } from 'got';
import type { Logger } from '../log.js';
import type {
  AgentInterface,
  CallOptions,
  CloneParams,
  ClusterResource,
  ClusterStatusEntry,
  NodeEntry,
  NodeStatus,
  ProxmoxApi,
  StorageEntry,
  StorageVolume,
  TaskListEntry,
  TaskLogLine,
  TaskStatus,
  Upid,
  VersionInfo,
  VmConfig,
  PendingEntry,
  VmStatus,
  NodeVmEntry,
  NetworkInterface,
  Permissions,
} from './api.js';
import { createCaLoader } from './ca.js';
import type { CaLoader } from './ca.js';
import { classifyError } from './classify.js';
import { ProxmoxTransientError } from './failure.js';
import { isoUploadBody } from './multipart.js';
import type { MultipartBody } from './multipart.js';
import { apiErrorFromAnswer } from './response-error.js';
import { ROUTES, fillPath } from './routes.js';
import type { PathValues, Route, RouteName } from './routes.js';
import { authorizationHeader } from './token.js';
import { createTokenSource } from './token-cache.js';
import type { Exchange, ExchangeListener } from './exchange.js';

export interface HttpApiOptions {
  /** `https://host:8006` (or `http://` for the simulator); `/api2/json` is added. */
  baseUrl: string;
  /** File holding `user@realm!id=secret`, read again when its mtime or size changes (checked at most once a second). */
  tokenFile: string;
  /** The clock the token file's checks are timed by, in ms since the epoch (default Date.now; tests pass a fake one). */
  now?: () => number;
  /** PEM CA file; empty or absent: the system's CAs. */
  caFile?: string;
  logger?: Logger;
  timeouts?: {
    /** TCP and TLS connect, each (default 10 s). */
    connectMs?: number;
    /** From the request sent to the answer's headers (default 60 s). */
    responseMs?: number;
  };
  /** Told every request and its answer, never a header or an upload's body (`verify --record`, SPEC 33). */
  onExchange?: ExchangeListener;
}

type Params = Record<string, string | number>;

interface Payload {
  query?: Params;
  form?: Params;
  upload?: MultipartBody;
  /** The uploaded file's name and size, for the exchange (its content is never recorded). */
  uploadFile?: { filename: string; size: number };
}

/** Task logs are paged (Proxmox's default is 50 lines); a clone's log can run longer. */
const TASK_LOG_LIMIT = 1000;

const flag = (value: boolean): number => (value ? 1 : 0);

function withoutUndefined(params: Record<string, string | number | undefined>): Params {
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined)) as Params;
}

function parseData(response: Response<string>, method: string, path: string): unknown {
  try {
    return (JSON.parse(response.body) as { data?: unknown }).data;
  } catch {
    const message = `Proxmox answered ${response.statusCode} to ${method} ${path} with a body that is not JSON`;
    throw new ProxmoxTransientError(message, { reason: message });
  }
}

/** Sends one call of `route` and answers the `data` of its answer. */
type Send = (route: RouteName, pathValues: PathValues, payload: Payload, opts?: CallOptions) => Promise<unknown>;

/** Where and how requests go: the API root, the keep-alive agents, the CA, the timeouts. */
interface Connection {
  apiRoot: string;
  agent: { http: HttpAgent; https: HttpsAgent };
  /** The CA file's certificates for TLS, when a CA file is set. */
  certificateAuthority(): Promise<string | undefined>;
  connectMs: number;
  responseMs: number;
}

function connectionOf(options: HttpApiOptions): Connection {
  const apiRoot = `${options.baseUrl.replace(/\/+$/, '')}/api2/json`;
  const useTls = apiRoot.startsWith('https:');
  const caLoader: CaLoader | undefined = options.caFile ? createCaLoader(options.caFile) : undefined;
  let caLogged = false;
  return {
    apiRoot,
    agent: {
      http: new HttpAgent({ keepAlive: true }),
      // ALPN offers http/1.1 alone: pveproxy speaks HTTP/1.1 only (F18).
      https: new HttpsAgent({ keepAlive: true, ALPNProtocols: ['http/1.1'] }),
    },
    async certificateAuthority() {
      if (!useTls || caLoader === undefined) return undefined;
      const ca = await caLoader.load();
      if (!caLogged) {
        caLogged = true;
        options.logger?.info({ caFile: options.caFile }, 'proxmox CA file loaded');
      }
      return ca;
    },
    connectMs: options.timeouts?.connectMs ?? 10_000,
    responseMs: options.timeouts?.responseMs ?? 60_000,
  };
}

/** One request's answer, whatever its status (no got retry, no redirect); a transport failure classified. */
async function request(connection: Connection, method: Route['method'], path: string, headers: Record<string, string>, payload: Payload, opts?: CallOptions): Promise<Response<string>> {
  const { connectMs, responseMs } = connection;
  const ca = await connection.certificateAuthority();
  try {
    opts?.onSend?.();
    return await got(`${connection.apiRoot}${path}`, {
      method,
      headers,
      ...(payload.query ? { searchParams: payload.query } : {}),
      ...(payload.form ? { form: payload.form } : {}),
      ...(payload.upload ? { body: payload.upload.body } : {}),
      responseType: 'text',
      throwHttpErrors: false,
      followRedirect: false,
      retry: { limit: 0 },
      http2: false,
      agent: connection.agent,
      ...(ca === undefined ? {} : { https: { certificateAuthority: ca } }),
      timeout: { lookup: connectMs, connect: connectMs, secureConnect: connectMs, response: responseMs },
      ...(opts?.signal ? { signal: opts.signal } : {}),
    });
  } catch (err) {
    throw classifyError(err);
  }
}

/** Runs one request and tells the listener what went and what came back (status 0 when no answer came). */
async function observed(listener: ExchangeListener | undefined, method: Route['method'], path: string, payload: Payload, send: () => Promise<Response<string>>): Promise<Response<string>> {
  if (listener === undefined) return send();
  const startedAt = Date.now();
  const sent: Pick<Exchange, 'method' | 'path' | 'query' | 'form' | 'upload'> = {
    method,
    path,
    ...(payload.query ? { query: payload.query } : {}),
    ...(payload.form ? { form: payload.form } : {}),
    ...(payload.uploadFile ? { upload: payload.uploadFile } : {}),
  };
  try {
    const response = await send();
    const headers = Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]));
    listener({ ...sent, status: response.statusCode, reason: response.statusMessage ?? '', headers, body: response.body, startedAt, ms: Date.now() - startedAt });
    return response;
  } catch (err) {
    listener({ ...sent, status: 0, reason: err instanceof Error ? err.message : String(err), headers: {}, body: '', startedAt, ms: Date.now() - startedAt });
    throw err;
  }
}

function httpSender(options: HttpApiOptions): Send {
  const tokens = createTokenSource(options.tokenFile, options.now ? { now: options.now } : {});
  const connection = connectionOf(options);
  return async (route, pathValues, payload, opts) => {
    const { method, template } = ROUTES[route];
    const path = fillPath(template, pathValues);
    const token = await tokens.token();
    const headers: Record<string, string> = { authorization: authorizationHeader(token), accept: 'application/json' };
    if (payload.upload) {
      headers['content-type'] = payload.upload.contentType;
      headers['content-length'] = String(payload.upload.contentLength);
    }
    const response = await observed(options.onExchange, method, path, payload, () => request(connection, method, path, headers, payload, opts));
    if (response.statusCode < 200 || response.statusCode > 299) {
      throw apiErrorFromAnswer({ status: response.statusCode, reason: response.statusMessage ?? '', body: response.body }, method, path);
    }
    return parseData(response, method, path);
  };
}

/** Clone's form: `full` as 0 or 1, the optional keys only when set. */
function cloneForm(params: CloneParams): Params {
  return withoutUndefined({
    newid: params.newid,
    name: params.name,
    description: params.description,
    full: flag(params.full),
    storage: params.storage,
    target: params.target,
  });
}

const vm = (node: string, vmid: number): PathValues => ({ node, vmid });

/** Each seam method as its request: path values, query or form, and the answer's shape. */
function seamOverHttp(call: Send): ProxmoxApi {
  return {
    version: async (opts) => (await call('version', {}, {}, opts)) as VersionInfo,
    nodes: async (opts) => (await call('nodes', {}, {}, opts)) as NodeEntry[],
    nodeStatus: async (node, opts) => (await call('nodeStatus', { node }, {}, opts)) as NodeStatus,
    clusterResources: async (type, opts) =>
      (await call('clusterResources', {}, { query: { type } }, opts)) as ClusterResource[],
    clusterStatus: async (opts) => (await call('clusterStatus', {}, {}, opts)) as ClusterStatusEntry[],
    getConfig: async (node, vmid, opts) => (await call('getConfig', vm(node, vmid), {}, opts)) as VmConfig,
    putConfig: async (node, vmid, params, opts) => {
      await call('putConfig', vm(node, vmid), { form: params }, opts);
    },
    statusCurrent: async (node, vmid, opts) => (await call('statusCurrent', vm(node, vmid), {}, opts)) as VmStatus,
    pendingConfig: async (node, vmid, opts) => (await call('pendingConfig', vm(node, vmid), {}, opts)) as PendingEntry[],
    nodeVms: async (node, opts) => (await call('nodeVms', { node }, { query: { full: 1 } }, opts)) as NodeVmEntry[],
    clone: async (node, templateVmid, params, opts) => (await call('clone', vm(node, templateVmid), { form: cloneForm(params) }, opts)) as Upid,
    resize: async (node, vmid, disk, size, opts) =>
      (await call('resize', vm(node, vmid), { form: { disk, size } }, opts)) as Upid,
    start: async (node, vmid, opts) => (await call('start', vm(node, vmid), {}, opts)) as Upid,
    stop: async (node, vmid, opts) => (await call('stop', vm(node, vmid), {}, opts)) as Upid,
    destroy: async (node, vmid, params, opts) => {
      const query = { purge: flag(params.purge), 'destroy-unreferenced-disks': flag(params.destroyUnreferencedDisks) };
      return (await call('destroy', vm(node, vmid), { query }, opts)) as Upid;
    },
    agentInterfaces: async (node, vmid, opts) => {
      const data = (await call('agentInterfaces', vm(node, vmid), {}, opts)) as { result?: AgentInterface[] } | null;
      return data?.result ?? [];
    },
    agentFileWrite: async (node, vmid, file, content, opts) => {
      // Encoded here, not by the API: Agent.pm's encode_base64 dies on a character past U+00FF and writes U+0080-U+00FF as Latin-1.
      await call('agentFileWrite', vm(node, vmid), { form: { file, content: Buffer.from(content, 'utf8').toString('base64'), encode: 0 } }, opts);
    },
    storages: async (node, opts) => (await call('storages', { node }, {}, opts)) as StorageEntry[],
    upload: async (node, storage, filename, source, opts) =>
      (await call('upload', { node, storage }, { upload: isoUploadBody(filename, source), uploadFile: { filename, size: source.size } }, opts)) as Upid,
    storageContent: async (node, storage, content, opts) =>
      (await call('storageContent', { node, storage }, { query: { content } }, opts)) as StorageVolume[],
    deleteVolume: async (node, storage, volid, opts) =>
      (await call('deleteVolume', { node, storage, volume: volid }, {}, opts)) as Upid,
    taskStatus: async (node, upid, opts) => (await call('taskStatus', { node, upid }, {}, opts)) as TaskStatus,
    taskLog: async (node, upid, opts) =>
      (await call('taskLog', { node, upid }, { query: { start: 0, limit: TASK_LOG_LIMIT } }, opts)) as TaskLogLine[],
    nodeTasks: async (node, query, opts) =>
      (await call('nodeTasks', { node }, { query: withoutUndefined({ ...query }) }, opts)) as TaskListEntry[],
    permissions: async (path, opts) => (await call('permissions', {}, { query: { path } }, opts)) as Permissions,
    networks: async (node, opts) => (await call('networks', { node }, {}, opts)) as NetworkInterface[],
  };
}

export function createHttpApi(options: HttpApiOptions): ProxmoxApi {
  return seamOverHttp(httpSender(options));
}
