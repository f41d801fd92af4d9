// An answer the simulator gives instead of data, shaped as pveproxy shapes
// it (F1): the status, the text as reason phrase and as the body's
// `message`, and for a 400 the `errors` map. 401 and the proxy errors
// (502, 503, 504, 595, 596) carry the reason phrase only.

export class SimAnswerError extends Error {
  override readonly name = 'SimAnswerError';
  /**
   * @param bodyMessage the body's `message` exactly (a `die` text ends in a newline)
   * @param errors the 400 errors map
   * @param emptyBody answer with the reason phrase only
   * @param plain a plain Perl `die` (no PVE::Exception): inside a task its text has no code in front
   */
  constructor(
    readonly status: number,
    readonly bodyMessage: string,
    readonly errors?: Record<string, string>,
    readonly emptyBody = false,
    readonly plain = false,
  ) {
    super(bodyMessage.trim());
  }

  /** The reason phrase: the message's first line, as PVE::APIServer::AnyEvent::response takes it (F1). */
  get reason(): string {
    return /^(.*)$/m.exec(this.bodyMessage)?.[1] ?? '';
  }

  /**
   * The exitstatus of a task that dies on this error: fork_worker chomps
   * and joins lines; a PVE::Exception stringifies with its code first
   * and its errors map after (Exception.pm stringify, audit 4c).
   */
  get taskExit(): string {
    let text = this.plain ? this.bodyMessage : `${this.status} ${this.bodyMessage}`;
    if (!text.endsWith('\n')) text += '\n';
    for (const [key, value] of Object.entries(this.errors ?? {})) text += `${key}: ${value}\n`;
    return text.replace(/\n$/, '').replace(/\n/g, ' ');
  }
}

/**
 * `400 Parameter verification failed.` with the per-parameter map (F1,
 * F9, F12, F15). Values go as given: raise_param_exc adds no newline,
 * JSONSchema's own texts bring theirs (audit 9).
 */
export function paramError(errors: Record<string, string>): SimAnswerError {
  return new SimAnswerError(400, 'Parameter verification failed.\n', errors);
}

/** A `500 <text>` as Proxmox answers a `die` in an API handler. */
export function dieError(text: string): SimAnswerError {
  return new SimAnswerError(500, `${text}\n`, undefined, false, true);
}

/** raise_perm_exc: `403 Permission check failed (<path>, <privilege>)` (F13). */
export function permissionError(path: string, privilege: string): SimAnswerError {
  return new SimAnswerError(403, `Permission check failed (${path}, ${privilege})\n`);
}

/** The exitstatus of a task whose worker threw err (fork_worker, RESTEnvironment.pm). */
export function taskExitOf(err: unknown): string {
  if (err instanceof SimAnswerError) return err.taskExit;
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/\n$/, '').replace(/\n/g, ' ');
}

/** An answer with no body, only status and reason phrase (401, proxy errors). */
export function bareError(status: number, reason: string): SimAnswerError {
  return new SimAnswerError(status, reason, undefined, true);
}
