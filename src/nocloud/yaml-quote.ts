// A value as a YAML double-quoted scalar with every character outside
// printable ASCII escaped, so a text such as `yes` or `123` stays a string
// and nothing in it (a comment, a colon, a newline) can break the YAML
// that PyYAML reads (meta-data, network-config, vendor-data).

export function yamlQuoted(text: string): string {
  return JSON.stringify(text).replace(/[^\x20-\x7e]/gu, (char) => {
    const code = char.codePointAt(0) ?? 0;
    return code > 0xffff ? `\\U${code.toString(16).padStart(8, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
