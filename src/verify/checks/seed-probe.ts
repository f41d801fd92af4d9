// The seed storage writable (SPEC 33): a tiny ISO (the project's own
// writer) uploaded as `pve-provisioner-verify-<random>.iso`, its task
// waited for, deleted, that task waited for, and its absence checked.
// Whatever fails, the probe is deleted before the check answers.
import { randomBytes } from 'node:crypto';
import { buildIsoImage } from '../../iso9660/index.js';
import type { NodeConfig } from '../../config/types.js';
import { errorText, fail, ok, type VerifyContext } from '../context.js';
import { taskSucceeded, waitForTask } from '../task-wait.js';
import type { CheckResult } from '../types.js';

const GROUP = 'storages';

function probeImage(): ReturnType<typeof buildIsoImage> {
  return buildIsoImage([{ name: 'verify.txt', data: Buffer.from('pve-provisioner verify probe\n') }], { volumeId: 'VERIFY', joliet: false });
}

async function runTask(ctx: VerifyContext, what: string, start: () => Promise<string>): Promise<void> {
  const exit = await waitForTask(ctx.api, await start(), ctx.config.budgets.taskSeconds);
  if (!taskSucceeded(exit)) throw new Error(`${what} task failed: ${exit}`);
}

async function removeProbe(ctx: VerifyContext, node: string, storage: string, volid: string): Promise<void> {
  await runTask(ctx, 'delete', () => ctx.api.deleteVolume(node, storage, volid));
  const left = await ctx.api.storageContent(node, storage, 'iso');
  if (left.some((v) => v.volid === volid)) throw new Error(`${volid} is still listed after its delete`);
}

export async function probeSeedStorage(ctx: VerifyContext, node: NodeConfig): Promise<CheckResult> {
  const storage = node.isoStorage;
  const name = `seed storage ${storage} on ${node.name} writable`;
  const filename = `pve-provisioner-verify-${randomBytes(4).toString('hex')}.iso`;
  const volid = `${storage}:iso/${filename}`;
  try {
    await runTask(ctx, 'upload', () => ctx.api.upload(node.name, storage, filename, probeImage()));
  } catch (err) {
    // The upload may have written the file before failing: delete it anyway (a missing volume's delete ends OK, F13).
    await removeProbe(ctx, node.name, storage, volid).catch(() => undefined);
    return fail(GROUP, name, `uploading ${filename} failed: ${errorText(err)}`, `let the token upload to ${storage} (Datastore.AllocateTemplate on /storage/${storage}) and check the storage has room: pvesm status --storage ${storage}`);
  }
  try {
    await removeProbe(ctx, node.name, storage, volid);
  } catch (err) {
    return fail(GROUP, name, `deleting ${volid} failed: ${errorText(err)}`, `grant Datastore.Allocate on /storage/${storage}, then remove the probe: pvesm free ${volid}`);
  }
  return ok(GROUP, name, `uploaded and deleted ${filename}`);
}
