// SPEC 17: the class of any error the client raises. Proxmox answers are
// matched by status and whole message; transport failures by their code.
// The reason says what an operator can do about it.
import { ClassifiedError, NotFoundError } from '../errors.js';
import { redactSecrets } from '../secrets/redact.js';
import { SecretFileError } from '../secrets/read.js';
import { isApiError } from './api-error.js';
import type { ProxmoxApiError } from './api-error.js';
import { ProxmoxPermanentError, ProxmoxTransientError } from './failure.js';
import type { FailureKind } from './failure.js';
import {
  CLONE_FAILED_PREFIX,
  CLONE_LOCAL_STORAGE,
  CONFIG_MISSING,
  DESTROY_RUNNING,
  LOCK_TIMEOUT,
  NO_WORKER,
  PROTECTION_ENABLED,
  STORAGE_DISABLED,
  STORAGE_MISSING,
  STORAGE_NOT_ON_NODE,
  VM_LOCKED,
} from './messages.js';

export { kindOf } from './failure.js';
export type { FailureKind } from './failure.js';

/** A transport failure stripped of the request it came from (its options hold the token header). */
export class TransportError extends Error {
  override readonly name = 'TransportError';
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(redactSecrets(message));
  }
}

const BUSY_TEXTS: readonly RegExp[] = [VM_LOCKED, LOCK_TIMEOUT, NO_WORKER, DESTROY_RUNNING];
/** 502, 503, 504 from a proxy in front; 595, 596 from pveproxy failing to reach a node. */
const UNREACHABLE_STATUSES = new Set([502, 503, 504, 595, 596]);
const PERMISSION_CHECK = /^Permission check failed \((\S+), (.+)\)$/;

/** OpenSSL's certificate verification codes, as Node reports them, and Node's host-name check. */
const TLS_VERIFY_CODES = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

const ABORT_CODES = new Set(['ERR_ABORTED', 'ABORT_ERR']);

function transient(message: string, reason: string, cause: unknown, kind?: FailureKind): ProxmoxTransientError {
  // Stryker disable next-line ConditionalExpression: { kind: undefined } and {} give the same error (kind is undefined either way)
  return new ProxmoxTransientError(message, { reason, cause, ...(kind === undefined ? {} : { kind }) });
}

function permanent(message: string, reason: string, cause: unknown, kind?: FailureKind): ProxmoxPermanentError {
  // Stryker disable next-line ConditionalExpression: { kind: undefined } and {} give the same error (kind is undefined either way)
  return new ProxmoxPermanentError(message, { reason, cause, ...(kind === undefined ? {} : { kind }) });
}

function describeParameterErrors(err: ProxmoxApiError): string {
  if (err.errors === undefined) return '';
  const fields = Object.entries(err.errors).map(([key, text]) => `${key}: ${text}`);
  return fields.length === 0 ? '' : ` (${fields.join('; ')})`;
}

/**
 * Plain dies (500) that no retry cures: the config names something Proxmox
 * does not have (SPEC 23; the provider adds which key to fix), or the VM
 * is protected (SPEC 28) until someone clears the flag.
 */
function misconfiguration(text: string): string | undefined {
  const storage = STORAGE_MISSING.exec(text);
  // Stryker disable next-line StringLiteral: a matched group is always defined; ?? '' is for the type checker
  if (storage) return `Proxmox has no storage '${storage[1] ?? ''}': check the storage names in proxmox.nodes`;
  const disabled = STORAGE_DISABLED.exec(text);
  // Stryker disable next-line StringLiteral: a matched group is always defined; ?? '' is for the type checker
  if (disabled) return `Proxmox storage '${disabled[1] ?? ''}' is disabled (storage.cfg): enable it, or check the storage names in proxmox.nodes`;
  const notOnNode = STORAGE_NOT_ON_NODE.exec(text);
  if (notOnNode) {
    // Stryker disable next-line StringLiteral: a matched group is always defined; ?? '' is for the type checker
    return `Proxmox storage '${notOnNode[1] ?? ''}' is not available on node ${notOnNode[2] ?? ''} (its nodes in storage.cfg leave it out): check the storage names in proxmox.nodes`;
  }
  const target = CLONE_LOCAL_STORAGE.exec(text);
  if (target) {
    // Stryker disable next-line StringLiteral: a matched group is always defined; ?? '' is for the type checker
    return `the template cannot be cloned to node ${target[1] ?? ''} because its disks are on local storage: give that node its own template or move the template's disks to shared storage`;
  }
  // Audit 7.1: someone set the VM's protection flag; only clearing it helps.
  if (PROTECTION_ENABLED.test(text)) return `the VM is protected (${text}): clear its protection (Options > Protection in the GUI, or qm set <vmid> --protection 0) and try again`;
  return undefined;
}

function classifyAnswer(err: ProxmoxApiError): ClassifiedError {
  const text = err.message;
  const call = `${err.method} ${err.path}`;
  if (err.status === 400) {
    return permanent(text, `Proxmox refused the request ${call}: ${text}${describeParameterErrors(err)}`, err);
  }
  if (err.status === 401) {
    return permanent(text, `credentials rejected: check proxmox.tokenFile (Proxmox said: ${text})`, err, 'CredentialsRejected');
  }
  if (err.status === 403) {
    const check = PERMISSION_CHECK.exec(text);
    const reason = check
      // Stryker disable next-line StringLiteral: a matched group is always defined; ?? '' is for the type checker
      ? `permission denied: the API token lacks ${check[2] ?? ''} on ${check[1] ?? ''} (${call})`
      : `permission denied: ${text} (${call})`;
    return permanent(text, reason, err, 'PermissionDenied');
  }
  if (CONFIG_MISSING.test(text)) return new NotFoundError(text, { reason: `not found: ${text}`, cause: err });
  if (BUSY_TEXTS.some((pattern) => pattern.test(text))) {
    return transient(text, `Proxmox is busy with this VM, retrying: ${text}`, err);
  }
  const misconfigured = misconfiguration(text);
  if (misconfigured !== undefined) return permanent(text, `${misconfigured} (${call})`, err);
  if (UNREACHABLE_STATUSES.has(err.status)) {
    return transient(text, `Proxmox unreachable (${err.status} ${text}) on ${call}`, err, 'Unreachable');
  }
  if (err.status >= 500) return transient(text, `Proxmox failed on ${call}: ${text}`, err);
  if (err.status === 408 || err.status === 429) return transient(text, `Proxmox asked to retry ${call}: ${text}`, err);
  // Stryker disable next-line EqualityOperator: 400 is answered above, so >= 400 and > 400 decide alike
  if (err.status >= 400) return permanent(text, `Proxmox refused ${call} with ${err.status}: ${text}`, err);
  return transient(text, `unexpected answer ${err.status} to ${call}: ${text}`, err);
}

function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

function classifyTransport(err: Error, code: string): ClassifiedError {
  const cause = new TransportError(err.message, code);
  if (TLS_VERIFY_CODES.has(code)) {
    return permanent(
      cause.message,
      `TLS verification failed (${code}): check proxmox.caFile and that proxmox.url names the host in the certificate`,
      cause,
      'CertificateInvalid',
    );
  }
  if (ABORT_CODES.has(code)) return transient(cause.message, 'request cancelled', cause);
  const timedOut = code === 'ETIMEDOUT' || err.name === 'TimeoutError';
  const reason = timedOut ? `Proxmox did not answer in time (${cause.message})` : `Proxmox unreachable (${code}: ${cause.message})`;
  return transient(cause.message, reason, cause, 'Unreachable');
}

/**
 * The class of an error from the client (SPEC 17). A classified error is
 * returned as is; a Proxmox answer keeps the ProxmoxApiError as `cause`;
 * anything unknown is Transient.
 */
export function classifyError(err: unknown): ClassifiedError {
  if (err instanceof ClassifiedError) return err;
  if (isApiError(err)) return classifyAnswer(err);
  if (err instanceof SecretFileError) {
    const reason = `credentials unavailable: ${err.message}; check proxmox.tokenFile`;
    return transient(err.message, reason, err, 'CredentialsUnavailable');
  }
  const code = errorCode(err);
  if (err instanceof Error && code !== undefined) return classifyTransport(err, code);
  const text = redactSecrets(err instanceof Error ? err.message : String(err));
  return transient(text, `unexpected failure talking to Proxmox: ${text}`, new TransportError(text, code ?? 'EUNKNOWN'));
}

/** A task's exit status when Proxmox raised an exception inside it: the HTTP code first (Exception.pm stringify, SPEC 23). */
// Stryker disable next-line Regex: an exit status is one line, and the greedy .+ reaches its end with or without $
const CODE_FIRST = /^([1-5]\d\d) (.+)$/;

/** Failed tasks that no retry can cure, by their text (F15, F20). */
const PERMANENT_TASK_TEXTS: readonly RegExp[] = [/^shrinking disks is not supported$/, /^storage '[^']+' does not support vm images$/];

/**
 * The class of a failed task (SPEC 16, SPEC 23), from its exit status.
 * `failed` says which task failed where (`resize of scsi0 of VM 100 failed
 * on node pve1`); an exception's code decides as it would for an answer,
 * so a missing privilege is Permanent and names the privilege.
 */
export function classifyTaskExit(exitstatus: string, failed: string, cause: unknown): ClassifiedError {
  const coded = CODE_FIRST.exec(exitstatus);
  const status = coded ? Number(coded[1]) : undefined;
  const text = coded?.[2] ?? exitstatus;
  const whole = `${failed}: ${exitstatus}`;
  if (status === 403) {
    const check = PERMISSION_CHECK.exec(text);
    // Stryker disable next-line StringLiteral: a matched group is always defined; ?? '' is for the type checker
    const reason = check ? `${failed}: permission denied: the API token lacks ${check[2] ?? ''} on ${check[1] ?? ''}` : `${failed}: permission denied: ${text}`;
    return permanent(whole, reason, cause, 'PermissionDenied');
  }
  if (status === 401) return permanent(whole, `${failed}: credentials rejected: check proxmox.tokenFile (${text})`, cause, 'CredentialsRejected');
  if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429) return permanent(whole, whole, cause);
  const misconfigured = misconfiguration(text.replace(CLONE_FAILED_PREFIX, ''));
  if (misconfigured !== undefined) return permanent(whole, `${failed}: ${misconfigured}`, cause);
  if (PERMANENT_TASK_TEXTS.some((re) => re.test(text))) return permanent(whole, whole, cause);
  return transient(whole, whole, cause);
}
