// What a route handler gets: the simulator, the verified parameters (path
// parameters included) and the token's owner for the tasks it starts.
import type { PropSchema } from '../formats.js';
import type { Simulator } from '../simulator.js';
import type { TaskOwner } from '../tasks.js';

export interface UploadedFile {
  filename: string;
  size: number;
  sha256: string;
}

export interface HandlerContext {
  sim: Simulator;
  params: Record<string, string>;
  owner: TaskOwner;
  /** The route's parameter schema, for the type of each config key. */
  properties: Record<string, PropSchema>;
  upload?: UploadedFile;
}

/** Returns the answer's `data`. */
export type Handler = (ctx: HandlerContext) => unknown;

export function vmidParam(ctx: HandlerContext, name = 'vmid'): number {
  return Number(ctx.params[name]);
}

export function param(ctx: HandlerContext, name: string): string {
  return ctx.params[name] ?? '';
}

/** Proxmox booleans arrive as 1/0, true/false, yes/no, on/off. */
export function flag(ctx: HandlerContext, name: string): boolean {
  return /^(1|true|yes|on)$/i.test(ctx.params[name] ?? '');
}
