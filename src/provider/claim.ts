// A claim (SPEC 30, the worker's claim path steps 1 to 4): the claimer's
// create takes the idle pool VM the accept gave it. Read the member's
// config where the claim says it is; rename it in one config write (name,
// the mark with the claimer's uid, the pool tag gone, the member's seed
// ejected), unless a run before this one did; write the claimer's keys
// into the image user's authorized_keys through the guest agent; answer
// with the address. Every step is safe to repeat. A member that is gone or
// not the claim's, or a claimer whose name another VM carries already, is
// a ClaimLostError, before any write: the caller goes the cold way.
// Forgetting the member and the refill are the caller's.
import { authorizedKeysContent, authorizedKeysPath, FILE_WRITE_MAX_CHARS, fileWriteChars, isGuestUserName } from '../pools/guest-user.js';
import { NotFoundError } from '../errors.js';
import type { VmConfig } from '../proxmox/api.js';
import { readAgentOnce } from './agent-read.js';
import { ClaimLostError } from './claim-lost.js';
import { beforeWrite, logLine } from './context.js';
import type { ProviderDeps } from './deps.js';
import { permanent, transient } from './errors.js';
import { jobSeam } from './job-seam.js';
import { formatMark, parseMark } from './mark.js';
import { otherVmNamed } from './ownership.js';
import { configuredNode, requireImage } from './placement.js';
import { clusterTag, mergeTags, poolTag, withoutTag } from './tags.js';
import { otherCluster } from './cluster-owner.js';
import { templateFor } from './template-ref.js';
import type { ClaimRequest, CreateResult, OperationContext } from './types.js';
import { providerId } from './vmid.js';

/** An empty CD-ROM drive (qemu-server's `none` volume): the member's seed ISO is left for the sweep. */
export const EJECTED_CDROM = 'none,media=cdrom';

export async function claimVm(deps: ProviderDeps, request: ClaimRequest, ctx: OperationContext): Promise<CreateResult> {
  const { spec, claim, user } = request;
  if (!isGuestUserName(user)) throw permanent(`claim for ${spec.name}: image user ${JSON.stringify(user)} is not a login name (proxmox.images[].user)`);
  const content = authorizedKeysContent(spec.sshKeys);
  if (fileWriteChars(content) > FILE_WRITE_MAX_CHARS) {
    throw new ClaimLostError(`claim of ${claim.member} for ${spec.name}: its sshKeys take ${fileWriteChars(content)} characters as base64, more than agent/file-write's ${FILE_WRITE_MAX_CHARS}`, 'keys-too-long');
  }
  const image = requireImage(deps, spec.image);
  // 1. The member's config, where the claim says it is (SPEC 28: read at its VMID, whatever it is called).
  const config = await memberConfig(deps, ctx, request);
  const mark = parseMark(config.description);
  // SPEC 32: a VM another cluster's mark or tag names is neither the member nor the claimer's.
  const here = otherCluster(deps.config.proxmox, config) === undefined;
  if (here && config.name === spec.name && mark?.uid === spec.uid) {
    await logLine(ctx, `VM ${claim.vmid} was renamed to ${spec.name} before; going on with its keys`);
  } else if (here && config.name === claim.member && mark?.uid === claim.memberUid) {
    await refuseNameHeld(deps, ctx, request);
    await rename(deps, ctx, request, config);
  } else {
    const holds = `${config.name === undefined ? 'no name' : `name ${config.name}`} and ${mark?.uid === undefined ? 'no mark' : `mark uid ${mark.uid}`}${here ? '' : ` of cluster ${otherCluster(deps.config.proxmox, config) ?? ''}`}`;
    throw new ClaimLostError(`claim of ${claim.member} for ${spec.name}: VM ${claim.vmid} on ${claim.node} holds ${holds}, neither the member's nor the claimer's`, 'not-the-member');
  }
  // The VM is the claimer's now: the member is forgotten before anything else can fail.
  await request.renamed?.();
  await ctx.progress?.('configured');
  // 3. The keys, one per line (none: an empty file); a file-write replaces the file whole.
  const file = authorizedKeysPath(user);
  beforeWrite(ctx);
  await jobSeam(deps, ctx).agentFileWrite(claim.node, claim.vmid, file, content);
  await logLine(ctx, `wrote ${spec.sshKeys?.length ?? 0} SSH key(s) to ${file} on VM ${claim.vmid}`);
  await ctx.progress?.('running');
  // 4. The address: the lease's, else the one the member reported, else one agent read.
  const address = await addressOf(deps, ctx, request, config);
  await ctx.progress?.('address');
  const node = configuredNode(deps, claim.node);
  const source = node === undefined ? undefined : templateFor(image, node)?.source;
  return {
    providerId: providerId(claim.vmid, spec.name),
    vmid: claim.vmid,
    node: claim.node,
    uid: spec.uid,
    state: 'Running',
    address,
    createdAt: mark?.writtenAtCreate ?? deps.now().toISOString(),
    image: image.name,
    ...(source === undefined ? {} : { source }),
    origin: 'pool',
  };
}

/**
 * SPEC 2, 30: one name, one VM. A VM already carrying the claimer's name
 * (an earlier create's, whose delete a new create superseded before it
 * ran) is the cold way's to keep or replace: the claim is lost before the
 * rename, or the name would have two VMs. A rerun after the rename never
 * gets here (the claimed VM carries the name then, at claim.vmid).
 */
async function refuseNameHeld(deps: ProviderDeps, ctx: OperationContext, { spec, claim, knownVmid }: ClaimRequest): Promise<void> {
  const held = await otherVmNamed(deps, ctx, spec.name, claim.vmid, knownVmid);
  if (held === undefined) return;
  const uid = parseMark(held.config.description)?.uid;
  throw new ClaimLostError(
    `claim of ${claim.member} for ${spec.name}: VM ${held.vmid} on ${held.node} is named ${spec.name} already (${uid === undefined ? 'no mark' : `mark uid ${uid}`}); the member is not renamed`,
    'name-held',
  );
}

async function memberConfig(deps: ProviderDeps, ctx: OperationContext, { spec, claim }: ClaimRequest): Promise<VmConfig> {
  try {
    return await jobSeam(deps, ctx).getConfig(claim.node, claim.vmid);
  } catch (err) {
    if (err instanceof NotFoundError) throw new ClaimLostError(`claim of ${claim.member} for ${spec.name}: VM ${claim.vmid} is gone from ${claim.node}`, 'gone', err);
    throw err;
  }
}

/**
 * 2. One config write: the claimer's name and mark (the member's creation
 * time kept), no pool tag, the member's seed ejected; in the
 * several-clusters form the cluster in the mark and its tag (SPEC 32).
 */
async function rename(deps: ProviderDeps, ctx: OperationContext, { spec, claim }: ClaimRequest, config: VmConfig): Promise<void> {
  const createdAt = new Date(parseMark(config.description)?.writtenAtCreate ?? Number.NaN);
  const { tag, clusterName } = deps.config.proxmox;
  const tags = withoutTag(config.tags, poolTag(tag));
  const params = {
    name: spec.name,
    description: formatMark(spec.uid, Number.isNaN(createdAt.getTime()) ? deps.now() : createdAt, clusterName),
    tags: clusterName === undefined ? tags : mergeTags(tags, clusterTag(tag, clusterName)),
    ide2: EJECTED_CDROM,
  };
  beforeWrite(ctx);
  await jobSeam(deps, ctx).putConfig(claim.node, claim.vmid, params);
  await logLine(ctx, `renamed VM ${claim.vmid} from ${claim.member} (pool ${claim.pool}) to ${spec.name}; tags ${params.tags}, ide2 ejected`);
}

async function addressOf(deps: ProviderDeps, ctx: OperationContext, { spec, claim }: ClaimRequest, config: VmConfig): Promise<string> {
  const known = spec.address?.address ?? claim.address;
  if (known !== undefined) return known;
  const read = await readAgentOnce(deps, ctx, { node: claim.node, vmid: claim.vmid, net0: typeof config.net0 === 'string' ? config.net0 : undefined }, undefined);
  await logLine(ctx, `VM ${claim.vmid}: ${read.said}`);
  // It was ready when it became idle: an agent that does not answer now is worth another try.
  if (read.address === undefined) throw transient(`claim of ${claim.member} for ${spec.name}: no address yet (${read.said})`);
  return read.address;
}
