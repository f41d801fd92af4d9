// The template check of SPEC 13 step 2 (F19): before any clone exists, a
// template that cannot give a working VM is refused as Permanent, with
// what is wrong in words.
import { NotFoundError } from '../errors.js';
import type { VmConfig } from '../proxmox/api.js';
import type { OperationContext } from './types.js';
import type { ProviderDeps } from './deps.js';
import { permanent } from './errors.js';
import { call } from './call.js';
import { describeTemplate, type NodeImageTemplate } from './template-ref.js';
import { bootDisk, cloudInitDrive, diskSizeBytes, GIB } from './vm-config.js';

export async function checkTemplate(
  deps: ProviderDeps,
  ctx: OperationContext,
  image: NodeImageTemplate,
  diskGiB: number,
): Promise<VmConfig> {
  const template = image.source;
  const what = `image ${image.image}'s ${describeTemplate(template)}`;
  let config: VmConfig;
  try {
    config = await call(ctx, () => deps.waits.reads.config(template.node, template.vmid).read(ctx.signal));
  } catch (err) {
    if (err instanceof NotFoundError) throw permanent(`${what} does not exist; fix ${image.key}`, err);
    throw err;
  }
  const wrong = templateProblem(config, diskGiB);
  if (wrong !== undefined) throw permanent(`${what} (${config.name ?? 'unnamed'}) cannot be used: ${wrong}`);
  return config;
}

/** What makes this template unusable, or undefined when it is fine. */
export function templateProblem(config: VmConfig, diskGiB: number): string | undefined {
  if (Number(config.template) !== 1) return 'it is not a template (convert it with "Convert to template")';
  if (config.net0 === undefined) return 'it has no net0, so the VM could never report an address';
  const ci = cloudInitDrive(config);
  if (ci !== undefined) {
    return `it has a Proxmox cloud-init drive on ${ci}, which would shadow the NoCloud seed; remove it from the template`;
  }
  const disk = bootDisk(config);
  if (disk === undefined) return 'it has no boot disk';
  const size = diskSizeBytes(config[disk]);
  if (size !== undefined && size > diskGiB * GIB) {
    return `its boot disk ${disk} is ${(size / GIB).toFixed(1)} GiB, larger than the ${diskGiB} GiB asked, and disks cannot shrink`;
  }
  return undefined;
}
