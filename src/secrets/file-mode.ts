// A secret file that group or others may read (or replace) is said once
// per file and mode, as a warn line naming the file and the chmod to run.
// Reading goes on: refusing would stop a running service over a mode an
// operator may have chosen. The lines go to the process's logger once
// the process names it; the ones found before wait for it.
import { statSync } from 'node:fs';

/** What is called on the process's logger (pino's Logger is one). */
export interface SecretFileModeLogger {
  warn(fields: object, line: string): void;
}

interface Warning {
  fields: { file: string; mode: string };
  line: string;
}

const said = new Set<string>();
const waiting: Warning[] = [];
let target: SecretFileModeLogger | undefined;

/** Where the warnings go from now on, the ones found so far first. */
export function logOpenSecretFilesTo(logger: SecretFileModeLogger): void {
  target = logger;
  for (const warning of waiting.splice(0)) logger.warn(warning.fields, warning.line);
}

/** The warning for a file of this mode, or undefined when only its owner may read and write it. */
export function openModeWarning(path: string, mode: number): Warning | undefined {
  const open = mode & 0o077;
  if (open === 0) return undefined;
  const who = [open & 0o070 ? 'group' : '', open & 0o007 ? 'others' : ''].filter((w) => w !== '').join(' and ');
  const how = [mode & 0o044 ? 'read' : '', mode & 0o022 ? 'change' : ''].filter((w) => w !== '').join(' and ') || 'reach';
  const octal = (mode & 0o777).toString(8).padStart(4, '0');
  return { fields: { file: path, mode: octal }, line: `secret file ${path} has mode ${octal}: ${who} may ${how} it; run: chmod 600 ${path}` };
}

/** Warns (once per file and mode) when the secret file at `path` is open to group or others. */
export function checkSecretFileMode(path: string): void {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return;
  }
  const warning = openModeWarning(path, mode);
  if (warning === undefined || said.has(`${path}\0${mode}`)) return;
  said.add(`${path}\0${mode}`);
  if (target === undefined) waiting.push(warning);
  else target.warn(warning.fields, warning.line);
}
