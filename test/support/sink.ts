// A writable a CLI command prints into, read back as one string.
export function sink(): { write(text: string): boolean; text: () => string } {
  let out = '';
  return {
    write(text: string) {
      out += text;
      return true;
    },
    text: () => out,
  };
}
