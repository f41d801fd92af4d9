// Sample arguments for every seam method, before its CallOptions: one
// table for the tests that call each route (routes-complete,
// budgeted-api). Typed by each method, so a new method without a row
// does not compile.
import { Readable } from 'node:stream';
import type { ArgsOf, RouteName } from '../../src/proxmox/routes.js';

export const UPID = 'UPID:pv1-1:000A1B2C:0012D687:68F0A1B2:qmclone:9001:root@pam!provisioner:';

/** Each method's arguments before its CallOptions; typed by the method, so a new one without a row does not compile. */
export const SAMPLE: { [K in RouteName]: ArgsOf<K> } = {
  version: [],
  nodes: [],
  nodeStatus: ['pv1-1'],
  clusterResources: ['vm'],
  clusterStatus: [],
  getConfig: ['pv1-1', 100],
  putConfig: ['pv1-1', 100, { cores: 2 }],
  statusCurrent: ['pv1-1', 100],
  pendingConfig: ['pv1-1', 100],
  nodeVms: ['pv1-1'],
  clone: ['pv1-1', 9001, { newid: 100, name: 'a', description: 'd', full: true }],
  resize: ['pv1-1', 100, 'scsi0', '10G'],
  start: ['pv1-1', 100],
  stop: ['pv1-1', 100],
  destroy: ['pv1-1', 100, { purge: true, destroyUnreferencedDisks: true }],
  agentInterfaces: ['pv1-1', 100],
  agentFileWrite: ['pv1-1', 100, '/root/.ssh/authorized_keys', 'ssh-ed25519 AAAA a@b\n'],
  storages: ['pv1-1'],
  upload: ['pv1-1', 'proxy-seeds', 'a-seed.iso', { size: 3, open: () => Readable.from([Buffer.from('abc')]) }],
  storageContent: ['pv1-1', 'proxy-seeds', 'iso'],
  deleteVolume: ['pv1-1', 'proxy-seeds', 'proxy-seeds:iso/a-seed.iso'],
  taskStatus: ['pv1-1', UPID],
  taskLog: ['pv1-1', UPID],
  nodeTasks: ['pv1-1', { source: 'all' }],
  permissions: ['/vms/9001'],
  networks: ['pv1-1'],
};

/** The sample arguments of a seam method, before its CallOptions. */
export const sample = (name: RouteName): unknown[] => {
  const args = SAMPLE[name] as unknown[] | undefined;
  if (args === undefined) throw new Error(`no sample arguments for ${name} in route-samples.ts`);
  return args;
};
