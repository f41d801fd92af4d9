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
   */
  constructor(
    readonly status: number,
    readonly bodyMessage: string,
    readonly errors?: Record<string, string>,
    readonly emptyBody = false,
  ) {
    super(bodyMessage.trim());
  }

  /** The reason phrase: the text on one line. */
  get reason(): string {
    return this.bodyMessage.trim().replace(/\s*\n\s*/g, ' ');
  }
}

/** `400 Parameter verification failed.` with the per-parameter map (F1, F9, F12, F15). */
export function paramError(errors: Record<string, string>): SimAnswerError {
  const withNewlines = Object.fromEntries(Object.entries(errors).map(([k, v]) => [k, v.endsWith('\n') ? v : `${v}\n`]));
  return new SimAnswerError(400, 'Parameter verification failed.\n', withNewlines);
}

/** A `500 <text>` as Proxmox answers a `die` in an API handler. */
export function dieError(text: string): SimAnswerError {
  return new SimAnswerError(500, `${text}\n`);
}

/** An answer with no body, only status and reason phrase (401, proxy errors). */
export function bareError(status: number, reason: string): SimAnswerError {
  return new SimAnswerError(status, reason, undefined, true);
}
