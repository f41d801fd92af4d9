// Which handler answers which schema path and method. A path the schema
// knows but the simulator does not implement answers 501, as an unknown one.
import type { Handler } from './handlers/context.js';
import { clusterResources, clusterStatus, nodes, version } from './handlers/cluster.js';
import { nodeStatus } from './handlers/node-status.js';
import { getConfig, getPending, putConfig } from './handlers/qemu-config.js';
import { clone, destroy, resize, start, stop } from './handlers/qemu-lifecycle.js';
import { agentInterfaces } from './handlers/qemu-agent.js';
import { agentFileWrite } from './handlers/qemu-agent-file.js';
import { nodeVms, statusCurrent } from './handlers/qemu-status.js';
import { deleteVolume, storageContent, storages, upload } from './handlers/storage.js';
import { taskLog, taskStatus } from './handlers/tasks.js';
import { nodeTasks } from './handlers/task-list.js';
import { permissions } from './handlers/access.js';
import { networks } from './handlers/network.js';

const QEMU = '/nodes/{node}/qemu/{vmid}';

export const ROUTES: Record<string, Handler> = {
  'GET /version': version,
  'GET /nodes': nodes,
  'GET /nodes/{node}/status': nodeStatus,
  'GET /cluster/resources': clusterResources,
  'GET /cluster/status': clusterStatus,
  [`GET ${QEMU}/config`]: getConfig,
  [`PUT ${QEMU}/config`]: putConfig,
  [`GET ${QEMU}/status/current`]: statusCurrent,
  [`GET ${QEMU}/pending`]: getPending,
  'GET /nodes/{node}/qemu': nodeVms,
  [`POST ${QEMU}/clone`]: clone,
  [`PUT ${QEMU}/resize`]: resize,
  [`POST ${QEMU}/status/start`]: start,
  [`POST ${QEMU}/status/stop`]: stop,
  [`DELETE ${QEMU}`]: destroy,
  [`GET ${QEMU}/agent/network-get-interfaces`]: agentInterfaces,
  [`POST ${QEMU}/agent/file-write`]: agentFileWrite,
  'GET /nodes/{node}/storage': storages,
  'POST /nodes/{node}/storage/{storage}/upload': upload,
  'GET /nodes/{node}/storage/{storage}/content': storageContent,
  'DELETE /nodes/{node}/storage/{storage}/content/{volume}': deleteVolume,
  'GET /nodes/{node}/tasks/{upid}/status': taskStatus,
  'GET /nodes/{node}/tasks/{upid}/log': taskLog,
  'GET /nodes/{node}/tasks': nodeTasks,
  'GET /access/permissions': permissions,
  'GET /nodes/{node}/network': networks,
};

/** The route whose upload body is multipart and streamed (F12). */
export const UPLOAD_ROUTE = 'POST /nodes/{node}/storage/{storage}/upload';
