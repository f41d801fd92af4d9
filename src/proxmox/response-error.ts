// Turns a non-2xx Proxmox answer into a ProxmoxApiError (SPEC 17, F1):
// the message is the body's trimmed `message`, else the reason phrase;
// a 400's `errors` map is kept with each text trimmed.
import { ProxmoxApiError } from './api-error.js';

export interface RawAnswer {
  status: number;
  /** The HTTP reason phrase (`statusMessage`). */
  reason: string;
  /** The body as the server sent it. */
  body: string;
}

interface ErrorBody {
  message?: unknown;
  errors?: unknown;
}

function parseErrorBody(body: string): ErrorBody {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null ? parsed : {};
  } catch {
    return {};
  }
}

function errorsMap(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const entries = Object.entries(value as Record<string, unknown>).map(([key, text]) => [key, String(text).trim()]);
  return Object.fromEntries(entries) as Record<string, string>;
}

export function apiErrorFromAnswer(answer: RawAnswer, method: string, path: string): ProxmoxApiError {
  const body = parseErrorBody(answer.body);
  const bodyMessage = typeof body.message === 'string' ? body.message.trim() : '';
  const reason = answer.reason.trim();
  const message = bodyMessage !== '' ? bodyMessage : reason !== '' ? reason : `HTTP ${answer.status}`;
  const errors = errorsMap(body.errors);
  return new ProxmoxApiError({
    status: answer.status,
    reason,
    message,
    method,
    path,
    ...(errors === undefined ? {} : { errors }),
  });
}
