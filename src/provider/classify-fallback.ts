// TEMPORARY: a minimal SPEC 17 mapping used until src/proxmox/classify.ts
// lands; provider code imports classifyError only through errors.ts so
// the switch is one line.
import { ClassifiedError, NotFoundError, PermanentError, TransientError } from '../errors.js';
import { isApiError } from '../proxmox/api-error.js';
import { CONFIG_MISSING, DESTROY_RUNNING, LOCK_TIMEOUT, NO_WORKER, VM_LOCKED } from '../proxmox/messages.js';

const TRANSIENT_TEXTS = [VM_LOCKED, LOCK_TIMEOUT, NO_WORKER, DESTROY_RUNNING];

export function classifyFallback(err: unknown): ClassifiedError {
  if (err instanceof ClassifiedError) return err;
  if (isApiError(err)) {
    const text = err.message;
    if (CONFIG_MISSING.test(text)) return new NotFoundError(text, { cause: err });
    if (TRANSIENT_TEXTS.some((re) => re.test(text))) return new TransientError(text, { cause: err });
    if (err.status === 401) {
      return new PermanentError(text, { cause: err, reason: `Proxmox rejected the API token (${text}); check proxmox.tokenFile` });
    }
    if (err.status === 403) {
      return new PermanentError(text, { cause: err, reason: `the API token lacks a privilege: ${text}` });
    }
    if (err.status === 400) {
      const fields = err.errors ? Object.entries(err.errors).map(([k, v]) => `${k}: ${v}`).join('; ') : '';
      return new PermanentError(text, { cause: err, reason: fields ? `${text} (${fields})` : text });
    }
    if (err.status >= 500) return new TransientError(text, { cause: err });
    return new PermanentError(text, { cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new TransientError(message, { cause: err });
}
