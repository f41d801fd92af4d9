// cloud-init's phone_home module as the seed asks for it (SPEC 29):
// `phone_home: {url, post, tries}` in the user-data's cloud-config, else
// the vendor-data's (a user-data key replaces the vendor-data's). Only a
// `#cloud-config` document counts; scripts, MIME multipart and includes
// are not read by the simulated guest.
import type { PhoneHomeRequest } from './types.js';
import { isMap, parseCloudYaml } from './yaml.js';

/** cc_phone_home's `all`: what `post: all` (the default) sends. */
const POST_ALL = ['pub_key_rsa', 'pub_key_ecdsa', 'pub_key_ed25519', 'instance_id', 'hostname', 'fqdn'];
/** cc_phone_home: `tries` when absent or not a number. */
const DEFAULT_TRIES = 10;

/** A cloud-config document's map, or a reason it gives none. */
function cloudConfig(text: string | undefined, file: string, problems: string[]): Record<string, unknown> | undefined {
  if (text === undefined || !/^#cloud-config[ \t]*\r?\n/.test(`${text}\n`)) return undefined;
  const parsed = parseCloudYaml(text);
  if ('problem' in parsed) {
    problems.push(`${file}: not YAML (${parsed.problem}); cloud-init skips it`);
    return undefined;
  }
  return isMap(parsed.value) ? parsed.value : undefined;
}

function phoneHomeOf(config: Record<string, unknown>, file: string, problems: string[]): PhoneHomeRequest | undefined {
  const section = config.phone_home;
  if (section === undefined) return undefined;
  if (!isMap(section) || typeof section.url !== 'string' || section.url === '') {
    problems.push(`${file}: phone_home has no url; cloud-init skips the module`);
    return undefined;
  }
  const post = section.post === undefined || section.post === 'all' ? POST_ALL : Array.isArray(section.post) ? section.post.map(String) : POST_ALL;
  const tries = Number.isInteger(Number(section.tries)) && Number(section.tries) > 0 ? Number(section.tries) : DEFAULT_TRIES;
  return { url: section.url, post, tries };
}

/** The phone_home the guest runs: user-data's, else vendor-data's; problems gets what it skipped and why. */
export function phoneHomeRequest(userData: string | undefined, vendorData: string | undefined, problems: string[]): PhoneHomeRequest | undefined {
  const user = cloudConfig(userData, 'user-data', problems);
  if (user?.phone_home !== undefined) return phoneHomeOf(user, 'user-data', problems);
  const vendor = cloudConfig(vendorData, 'vendor-data', problems);
  return vendor === undefined ? undefined : phoneHomeOf(vendor, 'vendor-data', problems);
}
