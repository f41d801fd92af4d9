// SPEC 18 and the bar: every path, method and parameter name the
// client can send is in the official Proxmox API schema
// (vendor/pve-api/apidata.json). Every seam method is driven against a
// recording server and each request is checked against the schema.
import { expect } from 'chai';
import { schemaByPath, type SchemaNode } from '../support/api-schema.js';
import { Readable } from 'node:stream';
import type { ProxmoxApi } from '../../src/proxmox/api.js';
import { ROUTES } from '../../src/proxmox/routes.js';
import type { RouteName } from '../../src/proxmox/routes.js';
import { startReplayServer } from '../support/replay-server.js';
import type { RecordedRequest, ReplayServer } from '../support/replay-server.js';
import { workspace } from './support.js';
import type { Workspace } from './support.js';

interface SchemaMethod {
  parameters?: { properties?: Record<string, unknown> };
}
const schemaNodes = [...schemaByPath<SchemaMethod>().values()];

function templateRegExp(template: string): RegExp {
  const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${pattern}$`);
}

/** The schema node whose path template matches a concrete, still-encoded path. */
function schemaFor(path: string): SchemaNode<SchemaMethod> | undefined {
  const matching = schemaNodes.filter((node) => templateRegExp(node.path).test(path));
  // A literal segment beats a placeholder: prefer the template with the fewest placeholders.
  return matching.sort((a, b) => (a.path.match(/\{/g)?.length ?? 0) - (b.path.match(/\{/g)?.length ?? 0))[0];
}

/** Whether `name` is a parameter of the schema, `net[n]` standing for net0, net1, ... */
function isParameter(properties: Record<string, unknown>, name: string): boolean {
  if (name in properties) return true;
  return Object.keys(properties).some((key) => key.endsWith('[n]') && new RegExp(`^${key.slice(0, -3)}\\d+$`).test(name));
}

function multipartFieldNames(request: RecordedRequest): string[] {
  return [...request.body.toString('latin1').matchAll(/Content-Disposition: form-data; name="([^"]+)"/g)].map((m) => m[1] ?? '');
}

function sentParameterNames(request: RecordedRequest): string[] {
  const type = String(request.headers['content-type'] ?? '');
  const bodyNames = type.startsWith('multipart/form-data')
    ? multipartFieldNames(request)
    : type === 'application/x-www-form-urlencoded'
      ? [...new URLSearchParams(request.body.toString('utf8')).keys()]
      : [];
  return [...request.query.keys(), ...bodyNames];
}

const UPID = 'UPID:pv1-1:000A1B2C:0012D687:68F0A1B2:qmclone:9001:root@pam!provisioner:';

/** Every seam method, with every optional parameter the client can send. */
const DRIVE: Record<RouteName, (api: ProxmoxApi) => Promise<unknown>> = {
  version: (api) => api.version(),
  nodes: (api) => api.nodes(),
  nodeStatus: (api) => api.nodeStatus('pv1-1'),
  clusterResources: async (api) => {
    await api.clusterResources('vm');
    await api.clusterResources('node');
  },
  clusterStatus: (api) => api.clusterStatus(),
  getConfig: (api) => api.getConfig('pv1-1', 199999),
  // SPEC 13 step 5: every key Create writes.
  putConfig: (api) =>
    api.putConfig('pv1-1', 199999, {
      cores: 4,
      memory: 4096,
      agent: 1,
      tags: 'debian;pve_provisioner',
      ide2: 'proxy-seeds:iso/x-seed.iso,media=cdrom',
      net0: 'virtio=BC:24:11:EE:48:83,bridge=vmbr0,tag=4',
      description: 'managed-by: pve-provisioner',
    }),
  statusCurrent: (api) => api.statusCurrent('pv1-1', 199999),
  pendingConfig: (api) => api.pendingConfig('pv1-1', 199999),
  nodeVms: (api) => api.nodeVms('pv1-1'),
  clone: (api) =>
    api.clone('pv1-1', 9001, { newid: 199999, name: 'proxy-a', description: 'd', full: true, storage: 'local-lvm', target: 'pv1-2' }),
  resize: (api) => api.resize('pv1-1', 199999, 'scsi0', '10G'),
  start: (api) => api.start('pv1-1', 199999),
  stop: (api) => api.stop('pv1-1', 199999),
  destroy: (api) => api.destroy('pv1-1', 199999, { purge: true, destroyUnreferencedDisks: true }),
  agentInterfaces: (api) => api.agentInterfaces('pv1-1', 199999),
  // SPEC 30: the claim's keys; `encode` is left at its default (the API encodes).
  agentFileWrite: (api) => api.agentFileWrite('pv1-1', 199999, '/root/.ssh/authorized_keys', 'ssh-ed25519 AAAA a@b\n'),
  storages: (api) => api.storages('pv1-1'),
  upload: (api) => api.upload('pv1-1', 'proxy-seeds', 'x-seed.iso', { size: 3, open: () => Readable.from([Buffer.from('abc')]) }),
  storageContent: async (api) => {
    await api.storageContent('pv1-1', 'proxy-seeds', 'iso');
    await api.storageContent('pv1-1', 'local-lvm', 'images');
  },
  deleteVolume: (api) => api.deleteVolume('pv1-1', 'proxy-seeds', 'proxy-seeds:iso/x-seed.iso'),
  taskStatus: (api) => api.taskStatus('pv1-1', UPID),
  taskLog: (api) => api.taskLog('pv1-1', UPID),
  nodeTasks: (api) => api.nodeTasks('pv1-1', { source: 'all', since: 1760600498, limit: 1000, userfilter: 'root@pam', typefilter: 'qmclone', start: 0 }),
  permissions: (api) => api.permissions('/vms/9001'),
  networks: (api) => api.networks('pv1-1'),
};

describe('every request the client can send is in the Proxmox API schema', () => {
  let ws: Workspace;
  let server: ReplayServer;
  before(async () => {
    ws = workspace();
    server = await startReplayServer(() => 'put_config_response');
    const api = ws.client(server.url);
    for (const drive of Object.values(DRIVE)) await drive(api);
  });
  after(async () => {
    await server.close();
    ws.remove();
  });

  it('drove every seam method and hit every route', () => {
    const hit = new Set(server.requests.map((r) => `${r.method} ${schemaFor(r.rawPath.replace(/^\/api2\/json/, ''))?.path ?? r.rawPath}`));
    const routes = new Set(Object.values(ROUTES).map((route) => `${route.method} ${route.template}`));
    expect([...routes].filter((route) => !hit.has(route))).to.deep.equal([]);
  });

  it('each request has a path, a method and parameter names the schema knows', () => {
    const problems: string[] = [];
    for (const request of server.requests) {
      expect(request.rawPath.startsWith('/api2/json/')).to.equal(true);
      const path = request.rawPath.replace(/^\/api2\/json/, '');
      const node = schemaFor(path);
      if (node === undefined) {
        problems.push(`no schema path for ${path}`);
        continue;
      }
      const method = node.info?.[request.method];
      if (method === undefined) {
        problems.push(`${request.method} not allowed on ${node.path}`);
        continue;
      }
      const properties = method.parameters?.properties ?? {};
      for (const name of sentParameterNames(request)) {
        if (!isParameter(properties, name)) problems.push(`${request.method} ${node.path}: unknown parameter ${name}`);
      }
    }
    expect(problems).to.deep.equal([]);
  });

  it('the check itself refuses an unknown parameter and expands net[n]', () => {
    const config = schemaFor('/nodes/pv1-1/qemu/1/config')?.info?.PUT?.parameters?.properties ?? {};
    expect(isParameter(config, 'net0')).to.equal(true);
    expect(isParameter(config, 'net12')).to.equal(true);
    expect(isParameter(config, 'net')).to.equal(false);
    expect(isParameter(config, 'bogus')).to.equal(false);
    expect(schemaFor('/nodes/pv1-1/qemu/1/status/start')?.path).to.equal('/nodes/{node}/qemu/{vmid}/status/start');
  });
});
