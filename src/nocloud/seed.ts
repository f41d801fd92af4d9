// The NoCloud seed ISO of SPEC 20: label `cidata`, files meta-data (with
// the job's sshKeys, SPEC 27), user-data, vendor-data (when the guest
// agent is to be installed or the guest is to phone home, SPEC 29) and
// network-config (when given). Built in memory, streamed to the upload.
import type { UploadSource } from '../proxmox/api.js';
import { PermanentError, TransientError } from '../errors.js';
import { buildIsoImage, type IsoFile } from '../iso9660/index.js';
import { metaData } from './meta-data.js';
import { userData } from './user-data.js';
import { vendorData } from './vendor-data.js';

/** cloud-init finds a NoCloud seed by this label (blkid LABEL). */
const SEED_LABEL = 'cidata';

export interface SeedInput {
  name: string;
  userData?: string;
  networkConfig?: string;
  /** OpenSSH public keys for the default user (SPEC 27), validated by src/job-table/ssh-key.ts. */
  sshKeys?: readonly string[];
  installGuestAgent: boolean;
  /** Readiness `phone-home` (SPEC 29): vendor-data has cloud-init's phone_home post to this URL. */
  phoneHomeUrl?: string;
  /** A warm pool's member (SPEC 30): its image's user, whose `~/.ssh` vendor-data makes for the claim's keys. */
  poolUser?: string;
  joliet: boolean;
}

function requireName(name: string): void {
  if (name === '') {
    throw new PermanentError('cannot build a seed for an empty VM name', {
      reason: 'The VM name is empty; give the job a name (a DNS label).',
    });
  }
}

/** The seed's file name on the ISO storage (SPEC 11): `<name>-seed.iso`. */
export function seedFileName(name: string): string {
  requireName(name);
  return `${name}-seed.iso`;
}

/** The files of the seed, by their exact names. */
export function seedFiles(input: SeedInput): IsoFile[] {
  const text = (name: string, content: string): IsoFile => ({ name, data: Buffer.from(content, 'utf8') });
  const files = [text('meta-data', metaData(input.name, input.sshKeys)), text('user-data', userData(input.userData))];
  const vendor = vendorData(input);
  if (vendor !== undefined) files.push(text('vendor-data', vendor));
  if (input.networkConfig !== undefined) files.push(text('network-config', input.networkConfig));
  return files;
}

/**
 * The seed ISO as an upload source: exact size, and a fresh stream of the
 * same bytes on every open(). An empty name is Permanent; any other
 * failure is Transient (the seeds' S5.1 finding: a staging failure must
 * not latch the VM as failed).
 */
export function buildSeed(input: SeedInput): UploadSource {
  requireName(input.name);
  try {
    return buildIsoImage(seedFiles(input), { volumeId: SEED_LABEL, joliet: input.joliet });
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw new TransientError(`building the seed ISO for "${input.name}" failed: ${detail}`, { cause: err });
  }
}
