// What the CLI prints of text it did not write itself (a job's log lines
// and failure reason, a Proxmox task's exit status, names, addresses and
// reports read from Redis) passes through here, so none of it can run a
// terminal's escape sequences or forge a line: control characters (C0,
// DEL, C1), Unicode line separators and bidirectional overrides are shown
// as escapes (`\x1b` as `\u001b`, CR as `\r`). The newlines and padding
// around such text are the CLI's own and stay as they are.

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function isUnsafe(code: number): boolean {
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x200e ||
    code === 0x200f ||
    code === 0x2028 ||
    code === 0x2029 ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

function unicodeEscape(char: string): string {
  return `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`;
}

/** Every character outside printable ASCII is looked at; the unsafe ones become escapes. */
const NOT_PRINTABLE_ASCII = /[^ -~]/g;

function escaped(text: string, escape: (char: string) => string): string {
  return text.replace(NOT_PRINTABLE_ASCII, (char) => (isUnsafe(char.codePointAt(0) ?? 0) ? escape(char) : char));
}

/** Foreign text made safe to print on a terminal, one line of it. */
export function shown(text: string): string {
  return escaped(text, (char) => NAMED[char] ?? unicodeEscape(char));
}

/**
 * One JSON document and its newline. JSON.stringify escapes C0 controls
 * inside strings already (a raw newline is its own indentation); DEL, C1
 * and the Unicode ones are written as `\uXXXX` too, which
 * a JSON parser reads back as the same string, so the document is the same
 * for a script and harmless on a terminal.
 */
export function jsonDocument(value: unknown): string {
  return `${escaped(JSON.stringify(value ?? null, null, 2), (char) => (char === '\n' ? char : unicodeEscape(char)))}\n`;
}
