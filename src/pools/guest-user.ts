// The image's default cloud-init user (`proxmox.images[].user`, SPEC 30):
// where its home is, so a member's seed can make `~/.ssh` and a claim can
// write `~/.ssh/authorized_keys` there through the guest agent.

/** A POSIX login name (shadow-utils' default NAME_REGEX, upper case allowed): safe in a path and in sh unquoted. */
const USER_NAME = /^[a-z_][a-z0-9_-]{0,31}$/i;

export function isGuestUserName(user: string): boolean {
  return USER_NAME.test(user);
}

/** cloud-init's default user's home: `/root` for root, else `/home/<user>`. */
export function guestHome(user: string): string {
  if (!isGuestUserName(user)) throw new Error(`image user ${JSON.stringify(user)} is not a login name (1 to 32 of letters, digits, _ and -, not starting with a digit or -)`);
  return user === 'root' ? '/root' : `/home/${user}`;
}

/** The file a claim writes the claimer's keys into. */
export function authorizedKeysPath(user: string): string {
  return `${guestHome(user)}/.ssh/authorized_keys`;
}

/** The user of an image in config, when it names one (`proxmox.images[].user`). */
export function imageUser(images: readonly { name: string; user?: string }[], image: string): string | undefined {
  return images.find((i) => i.name === image)?.user;
}

/**
 * Agent.pm file-write's `content` maxLength (60 KiB). The content is sent
 * as base64 of its UTF-8 bytes with `encode=0` (src/proxmox/http-api.ts),
 * so the limit is on that base64 text: at most 46080 bytes of keys.
 */
export const FILE_WRITE_MAX_CHARS = 61_440;

/** How many characters `content` takes in file-write's `content` parameter: the base64 of its UTF-8 bytes. */
export function fileWriteChars(content: string): number {
  return 4 * Math.ceil(Buffer.byteLength(content, 'utf8') / 3);
}

/** `authorized_keys` as a claim writes it: one key per line, each ending in a newline; no keys, an empty file. */
export function authorizedKeysContent(keys: readonly string[] = []): string {
  return keys.map((key) => `${key}\n`).join('');
}

/** Whether a claim can write these keys in its one agent/file-write (a create whose keys do not fit should not claim). */
export function keysFitFileWrite(keys: readonly string[] = []): boolean {
  return fileWriteChars(authorizedKeysContent(keys)) <= FILE_WRITE_MAX_CHARS;
}
