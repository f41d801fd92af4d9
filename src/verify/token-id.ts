// The token's id (`user@realm!id`) from proxmox.tokenFile, for the fixes
// verify prints (`pveum aclmod <path> -token '<id>' ...`). The secret after
// `=` is never kept, printed or logged.
import { readFile } from 'node:fs/promises';

/** `user@realm!id`, or undefined when the file is unreadable or holds no such part. */
export async function readTokenId(tokenFile: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(tokenFile, 'utf8');
  } catch {
    return undefined;
  }
  const id = /^\s*([^\s=!@]+@[^\s=!]+![^\s=]+)=/.exec(text)?.[1];
  return id;
}
