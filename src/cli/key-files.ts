// The files a repeatable list flag names (`--ssh-key FILE`, SPEC 6, 27):
// each holds one or more items, one a line, as a `.pub` file or an
// authorized_keys file writes them; blank lines and `#` comment lines are
// skipped. Each item remembers where it came from, so an error about
// `sshKeys[3]` can name the file and line the user wrote. A file that
// holds a private key (`--ssh-key ~/.ssh/id_ed25519`, the .pub left off)
// is refused as a whole, quoting nothing of it: read line by line, an RSA
// one would only be "more than 32 items" and an Ed25519 one seven errors.
import { BadInput, readUtf8File } from './flags.js';

export interface ListItems {
  items: string[];
  /** Where item i was read: `--ssh-key keys.pub line 2`. */
  origins: string[];
}

export async function readListFiles(flag: string, paths: readonly string[], maxBytesPerFile: number): Promise<ListItems> {
  const items: string[] = [];
  const origins: string[] = [];
  for (const path of paths) {
    const text = await readUtf8File(flag, path, maxBytesPerFile);
    if (text.includes('PRIVATE KEY')) throw new BadInput(`${flag} ${path}: is a private key; give its public key (the .pub file), and keep the private one to yourself`);
    const lines = text.split(/\r?\n/);
    const before = items.length;
    lines.forEach((line, i) => {
      const item = line.trim();
      if (item === '' || item.startsWith('#')) return;
      items.push(item);
      origins.push(`${flag} ${path} line ${i + 1}`);
    });
    if (items.length === before) throw new BadInput(`${flag} ${path}: no line in it (blank lines and # comments are skipped)`);
  }
  return { items, origins };
}
