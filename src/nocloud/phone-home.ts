// cloud-init's phone_home module for readiness `phone-home` (SPEC 29): at
// the end of the guest's first boot (cloud_final_modules, once per
// instance) it POSTs the instance id, form-encoded, to the service's
// /v1/ready/<token>, trying up to PHONE_HOME_TRIES times 3 s apart. It
// goes into vendor-data, which cloud-init merges under the job's own
// user-data, so that stays as the job gave it.
import { yamlQuoted } from './yaml-quote.js';

export const PHONE_HOME_TRIES = 10;

/** The cloud-config lines (no `#cloud-config` header) that phone home to `url`. */
export function phoneHomeLines(url: string): string {
  return `# pve-provisioner: tell the service this guest has booted (readiness phone-home).
phone_home:
  url: ${yamlQuoted(url)}
  post:
    - instance_id
  tries: ${PHONE_HOME_TRIES}
`;
}
