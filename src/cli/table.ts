// A plain text table for the CLI: columns padded to their widest cell, two spaces apart.
// The cells come from Redis, so each is made safe for a terminal first.
import { shown } from './terminal-text.js';

export function table(header: string[], foreignRows: string[][]): string {
  const rows = foreignRows.map((cells) => cells.map(shown));
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((cells) => (cells[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ');
  return `${[header, ...rows].map(line).join('\n')}\n`;
}
