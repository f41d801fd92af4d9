// Health (SPEC 19): every configured node checked concurrently: /version,
// the node online, the seed storage present with ISO content, the
// template present and a template. Each failure is a reason an operator
// can act on.
import type { NodeConfig } from '../config-types.js';
import { NotFoundError } from '../errors.js';
import { kindOf } from '../proxmox/classify.js';
import type { HealthReason, NodeHealth, OperationContext } from './types.js';
import { callOpts, type ProviderDeps } from './deps.js';
import { call } from './call.js';
import { throwIfAborted } from './errors.js';

type Finding = NodeHealth['reasons'][number];

/** The reason a failed call stands for: the client's kind when it has one, else the check's own. */
function finding(err: unknown, fallback: HealthReason): Finding {
  const detail = err instanceof Error ? ('reason' in err && typeof err.reason === 'string' ? err.reason : err.message) : String(err);
  return { reason: kindOf(err) ?? fallback, detail };
}

async function checkNode(deps: ProviderDeps, ctx: OperationContext, node: NodeConfig): Promise<NodeHealth> {
  const opts = callOpts(ctx);
  const reasons: Finding[] = [];
  const done = (): NodeHealth => ({ node: node.name, ok: reasons.length === 0, reasons });
  try {
    await call(ctx, () => deps.api.version(opts));
  } catch (err) {
    throwIfAborted(ctx.signal);
    reasons.push(finding(err, 'Unreachable'));
    return done();
  }
  try {
    const entry = (await call(ctx, () => deps.api.nodes(opts))).find((n) => n.node === node.name);
    if (entry?.status !== 'online') {
      reasons.push({ reason: 'NodeOffline', detail: entry ? `node ${node.name} is ${entry.status}` : `node ${node.name} is not in the cluster` });
      return done();
    }
  } catch (err) {
    throwIfAborted(ctx.signal);
    reasons.push(finding(err, 'Unreachable'));
    return done();
  }
  const [storage, template] = await Promise.all([checkStorage(deps, ctx, node), checkTemplate(deps, ctx, node)]);
  if (storage) reasons.push(storage);
  if (template) reasons.push(template);
  return done();
}

async function checkStorage(deps: ProviderDeps, ctx: OperationContext, node: NodeConfig): Promise<Finding | undefined> {
  try {
    const storages = await call(ctx, () => deps.api.storages(node.name, callOpts(ctx)));
    const seed = storages.find((s) => s.storage === node.isoStorage);
    if (!seed) return { reason: 'StorageNotFound', detail: `storage ${node.isoStorage} (proxmox.nodes[].isoStorage) is not on node ${node.name}` };
    if (!(seed.content ?? '').split(',').includes('iso')) {
      return { reason: 'StorageNotFound', detail: `storage ${node.isoStorage} on ${node.name} does not hold ISO images (content: ${seed.content ?? 'none'})` };
    }
    if (seed.active === 0 || seed.enabled === 0) {
      return { reason: 'StorageNotFound', detail: `storage ${node.isoStorage} on ${node.name} is not active` };
    }
    return undefined;
  } catch (err) {
    throwIfAborted(ctx.signal);
    return finding(err, 'StorageNotFound');
  }
}

async function checkTemplate(deps: ProviderDeps, ctx: OperationContext, node: NodeConfig): Promise<Finding | undefined> {
  try {
    const config = await call(ctx, () => deps.api.getConfig(node.name, node.template, callOpts(ctx)));
    if (Number(config.template) !== 1) {
      return { reason: 'TemplateNotFound', detail: `VM ${node.template} (${config.name ?? 'unnamed'}) on ${node.name} is not a template` };
    }
    return undefined;
  } catch (err) {
    throwIfAborted(ctx.signal);
    if (err instanceof NotFoundError) return { reason: 'TemplateNotFound', detail: `template ${node.template} does not exist on ${node.name}` };
    return finding(err, 'TemplateNotFound');
  }
}

export async function health(deps: ProviderDeps, ctx: OperationContext): Promise<NodeHealth[]> {
  return Promise.all(deps.config.proxmox.nodes.map((node) => checkNode(deps, ctx, node)));
}
