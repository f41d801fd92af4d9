// What a route handler gets: the simulator, the verified parameters (path
// parameters included) and the token's owner for the tasks it starts.
import { paramError } from '../answer-error.js';
import type { HandlerWork } from '../daemons.js';
import type { PropSchema } from '../formats.js';
import type { Simulator } from '../simulator.js';
import type { TaskOwner } from '../tasks.js';

export interface UploadedFile {
  filename: string;
  size: number;
  sha256: string;
  /** The file's bytes when small enough to keep (kept-isos.ts). */
  bytes?: Buffer;
}

export interface HandlerContext {
  sim: Simulator;
  params: Record<string, string>;
  owner: TaskOwner;
  /** The route's parameter schema, for the type of each config key. */
  properties: Record<string, PropSchema>;
  upload?: UploadedFile;
  /** The node whose pveproxy the client connected to (SPEC 28). */
  entryNode: string;
  /** What the handler did beyond answering, for the daemon model (daemons.ts). */
  work: HandlerWork;
}

/** Returns the answer's `data`. */
export type Handler = (ctx: HandlerContext) => unknown;

export function vmidParam(ctx: HandlerContext, name = 'vmid'): number {
  return Number(ctx.params[name]);
}

export function param(ctx: HandlerContext, name: string): string {
  return ctx.params[name] ?? '';
}

/** A boolean parameter; the schema lets only `0` and `1` through (JSONSchema.pm, audit 12b). */
export function flag(ctx: HandlerContext, name: string): boolean {
  return ctx.params[name] === '1';
}

/** Perl's truth of a parameter: absent, empty and `0` are false. */
export function perlTrue(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0';
}

/**
 * Options qemu-server allows only `root@pam` (`Only root may use this
 * option.`): for an API token the user is `<user>!<token>`, never root@pam.
 */
export function refuseRootOnly(ctx: HandlerContext, names: string[]): void {
  for (const name of names) if (perlTrue(ctx.params[name])) throw paramError({ [name]: 'Only root may use this option.' });
}
