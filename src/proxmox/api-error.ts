// A non-2xx answer from Proxmox (SPEC 17, F1): the message is the body's
// trimmed `message`, else the reason phrase; a 400 adds the `errors` map.
import { redactSecrets } from '../secrets/redact.js';

export interface ApiErrorInit {
  status: number;
  /** The HTTP reason phrase (F1: it carries the text too). */
  reason: string;
  /** Trimmed body `message`, else the reason phrase. */
  message: string;
  errors?: Record<string, string>;
  method: string;
  path: string;
}

export class ProxmoxApiError extends Error {
  override readonly name = 'ProxmoxApiError';
  readonly status: number;
  readonly reason: string;
  readonly errors: Record<string, string> | undefined;
  readonly method: string;
  readonly path: string;

  constructor(init: ApiErrorInit) {
    // Redacted here, once, so no copy of the text can carry a secret the
    // server echoed (SPEC 18).
    super(redactSecrets(init.message));
    this.status = init.status;
    this.reason = redactSecrets(init.reason);
    this.errors =
      init.errors === undefined
        ? undefined
        : Object.fromEntries(Object.entries(init.errors).map(([k, v]) => [k, redactSecrets(v)]));
    this.method = init.method;
    this.path = init.path;
  }
}

export function isApiError(err: unknown): err is ProxmoxApiError {
  return err instanceof ProxmoxApiError;
}
