// NoCloud vendor-data (SPEC 20): installs and starts qemu-guest-agent with
// whichever package manager the guest has, so Proxmox can read the VM's
// address (SPEC 10). A #cloud-config (not a bare script) so that
// `cloud-init schema` can check it. cloud-init lets user-data keys replace
// vendor-data keys, so a job whose user-data has its own `runcmd` must
// install the agent itself (or use a template that has it). Readiness
// `phone-home` (SPEC 29) adds cloud-init's phone_home after it, leaving
// the agent's text as it was byte for byte. A warm pool's member (SPEC 30)
// makes its image user's ~/.ssh first, for the claim's keys.
import { guestHome } from '../pools/guest-user.js';
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

/** One runcmd entry: a block scalar sh runs whole. */
function runcmdEntry(script: string): string {
  return `  - |\n${indent(script, 4)}\n`;
}

const AGENT_COMMENT = `# pve-provisioner: install and start the QEMU guest agent, so Proxmox can
# report this VM's address.
`;

/** The vendor-data that installs and starts the guest agent at first boot. */
export const GUEST_AGENT_VENDOR_DATA = `#cloud-config
${AGENT_COMMENT}runcmd:
${runcmdEntry(INSTALL_AND_START_AGENT)}`;

/**
 * A pool member's (SPEC 30): the user's `~/.ssh`, mode 700 and owned by
 * the user (`user:` is its login group), for the claim's agent/file-write,
 * which cannot make a directory. runcmd runs after cloud-init made the
 * user, and this entry before the agent's, so the agent never answers
 * before the directory is there.
 */
function sshDirScript(user: string): string {
  const dir = `${guestHome(user)}/.ssh`;
  return `mkdir -p ${dir} && chown ${user}: ${dir} && chmod 700 ${dir}`;
}

export interface VendorDataParts {
  installGuestAgent: boolean;
  /** Where the guest phones home (readiness `phone-home`, SPEC 29); absent: it does not. */
  phoneHomeUrl?: string;
  /** A pool member's image user (SPEC 30): its `~/.ssh` is made for the claim's keys; absent: not a member. */
  poolUser?: string;
}

/** The vendor-data file: the member's `~/.ssh`, the agent's install, the phone-home, in one cloud-config, or undefined for none. */
export function vendorData(parts: VendorDataParts): string | undefined {
  const phoneHome = parts.phoneHomeUrl === undefined ? undefined : phoneHomeLines(parts.phoneHomeUrl);
  if (parts.poolUser === undefined) {
    if (parts.installGuestAgent) return GUEST_AGENT_VENDOR_DATA + (phoneHome ?? '');
    return phoneHome === undefined ? undefined : `#cloud-config\n${phoneHome}`;
  }
  const user = parts.poolUser;
  const comment = `# pve-provisioner: make ${user}'s ~/.ssh, where a warm pool's claim writes its keys.\n${parts.installGuestAgent ? AGENT_COMMENT : ''}`;
  const entries = runcmdEntry(sshDirScript(user)) + (parts.installGuestAgent ? runcmdEntry(INSTALL_AND_START_AGENT) : '');
  return `#cloud-config\n${comment}runcmd:\n${entries}${phoneHome ?? ''}`;
}
