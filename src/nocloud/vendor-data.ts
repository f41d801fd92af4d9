// NoCloud vendor-data (SPEC 20): installs and starts qemu-guest-agent with
// whichever package manager the guest has, so Proxmox can read the VM's
// address (SPEC 10). A #cloud-config (not a bare script) so that
// `cloud-init schema` can check it. cloud-init lets user-data keys replace
// vendor-data keys, so a job whose user-data has its own `runcmd` must
// install the agent itself (or use a template that has it). Readiness
// `phone-home` (SPEC 29) adds cloud-init's phone_home after it, leaving
// the agent's text as it was byte for byte.
import { phoneHomeLines } from './phone-home.js';

const INSTALL_AND_START_AGENT = `if ! command -v qemu-ga >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q && apt-get install -y -q qemu-guest-agent
  elif command -v dnf >/dev/null 2>&1; then
    dnf install -y qemu-guest-agent
  elif command -v yum >/dev/null 2>&1; then
    yum install -y qemu-guest-agent
  elif command -v zypper >/dev/null 2>&1; then
    zypper --non-interactive install qemu-guest-agent
  elif command -v apk >/dev/null 2>&1; then
    apk add --no-cache qemu-guest-agent
  else
    echo "pve-provisioner: no apt-get, dnf, yum, zypper or apk; install qemu-guest-agent in the template" >&2
  fi
fi
if command -v systemctl >/dev/null 2>&1; then
  systemctl enable qemu-guest-agent >/dev/null 2>&1 || true
  systemctl start qemu-guest-agent
elif command -v rc-service >/dev/null 2>&1; then
  rc-update add qemu-guest-agent default
  rc-service qemu-guest-agent start
fi`;

function indent(text: string, spaces: number): string {
  const pad = ' '.repeat(spaces);
  return text
    .split('\n')
    .map((line) => (line === '' ? line : pad + line))
    .join('\n');
}

/** The vendor-data that installs and starts the guest agent at first boot. */
export const GUEST_AGENT_VENDOR_DATA = `#cloud-config
# pve-provisioner: install and start the QEMU guest agent, so Proxmox can
# report this VM's address.
runcmd:
  - |
${indent(INSTALL_AND_START_AGENT, 4)}
`;

export interface VendorDataParts {
  installGuestAgent: boolean;
  /** Where the guest phones home (readiness `phone-home`, SPEC 29); absent: it does not. */
  phoneHomeUrl?: string;
}

/** The vendor-data file: the agent's install, the phone-home, both in one cloud-config, or undefined for none. */
export function vendorData(parts: VendorDataParts): string | undefined {
  const phoneHome = parts.phoneHomeUrl === undefined ? undefined : phoneHomeLines(parts.phoneHomeUrl);
  if (parts.installGuestAgent) return GUEST_AGENT_VENDOR_DATA + (phoneHome ?? '');
  return phoneHome === undefined ? undefined : `#cloud-config\n${phoneHome}`;
}
