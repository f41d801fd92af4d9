// SPEC 17: every status and transport code the classifier decides on, one
// by one, with the reason an operator reads. The fixtures of
// classify.test.ts cover the texts Proxmox sends; this covers the codes
// around them (every 4xx, 408 and 429, every TLS verification code, the
// abort and timeout codes) that no fixture carries (issue 19).
import { expect } from 'chai';
import { classOf, NotFoundError, TransientError } from '../../src/errors.js';
import { ProxmoxApiError } from '../../src/proxmox/api-error.js';
import { classifyError, classifyTaskExit, kindOf, TransportError } from '../../src/proxmox/classify.js';
import { SecretFileError } from '../../src/secrets/read.js';

function answer(status: number, message: string, errors?: Record<string, string>): ProxmoxApiError {
  return new ProxmoxApiError({ status, reason: message, message, method: 'GET', path: '/nodes/pve1/qemu/100/config', ...(errors ? { errors } : {}) });
}

function transportFailure(code: string, message = `failure ${code}`, name = 'RequestError'): Error {
  const err = new Error(message);
  err.name = name;
  return Object.assign(err, { code });
}

/** Every code Node's TLS layer reports when it cannot verify the server (OpenSSL's X509_V_ERR_* and the host-name check). */
const TLS_VERIFY_CODES = [
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
];

describe('classifier: status codes (SPEC 17)', () => {
  it('every 4xx other than 408 and 429 is Permanent, naming the status and the call', () => {
    for (const status of [402, 404, 405, 406, 409, 410, 411, 413, 415, 422, 423, 428, 431, 451, 499]) {
      const err = classifyError(answer(status, 'Refused here'));
      expect(err.errorClass, String(status)).to.equal('Permanent');
      expect(err.reason).to.equal(`Proxmox refused GET /nodes/pve1/qemu/100/config with ${status}: Refused here`);
      expect(kindOf(err)).to.equal(undefined);
    }
  });

  it('408 and 429 are Transient: Proxmox asks to come back', () => {
    for (const status of [408, 429]) {
      const err = classifyError(answer(status, 'Try later'));
      expect(err.errorClass, String(status)).to.equal('Transient');
      expect(err.reason).to.equal('Proxmox asked to retry GET /nodes/pve1/qemu/100/config: Try later');
    }
  });

  it('400 names the call and every refused parameter; an empty errors map adds nothing', () => {
    const withFields = classifyError(answer(400, 'Parameter verification failed.', { cores: 'value must be at least 1', name: 'invalid format' }));
    expect(withFields.errorClass).to.equal('Permanent');
    expect(withFields.reason).to.equal(
      'Proxmox refused the request GET /nodes/pve1/qemu/100/config: Parameter verification failed. (cores: value must be at least 1; name: invalid format)',
    );
    expect(classifyError(answer(400, 'Parameter verification failed.', {})).reason).to.equal(
      'Proxmox refused the request GET /nodes/pve1/qemu/100/config: Parameter verification failed.',
    );
    expect(classifyError(answer(400, 'Bad request')).reason).to.equal('Proxmox refused the request GET /nodes/pve1/qemu/100/config: Bad request');
  });

  it('401 is Permanent CredentialsRejected and says to check the token file', () => {
    const err = classifyError(answer(401, 'authentication failure'));
    expect(err.errorClass).to.equal('Permanent');
    expect(kindOf(err)).to.equal('CredentialsRejected');
    expect(err.reason).to.equal('credentials rejected: check proxmox.tokenFile (Proxmox said: authentication failure)');
  });

  it('403 without a privilege in its text is Permanent PermissionDenied and quotes the text', () => {
    const err = classifyError(answer(403, 'Permission check failed'));
    expect(err.errorClass).to.equal('Permanent');
    expect(kindOf(err)).to.equal('PermissionDenied');
    expect(err.reason).to.equal('permission denied: Permission check failed (GET /nodes/pve1/qemu/100/config)');
    // The privilege pattern is anchored: a text that only contains it is quoted, not parsed.
    const wrapped = classifyError(answer(403, 'error: Permission check failed (/vms/100, VM.Audit)'));
    expect(wrapped.reason).to.equal('permission denied: error: Permission check failed (/vms/100, VM.Audit) (GET /nodes/pve1/qemu/100/config)');
    const trailing = classifyError(answer(403, 'Permission check failed (/vms/100, VM.Audit) and more'));
    expect(trailing.reason).to.equal('permission denied: Permission check failed (/vms/100, VM.Audit) and more (GET /nodes/pve1/qemu/100/config)');
    const parsed = classifyError(answer(403, 'Permission check failed (/vms/100, VM.Audit)'));
    expect(parsed.reason).to.equal('permission denied: the API token lacks VM.Audit on /vms/100 (GET /nodes/pve1/qemu/100/config)');
  });

  it('the missing-config text is NotFound whatever the status, with the text as reason', () => {
    const err = classifyError(answer(500, "Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist"));
    expect(err).to.be.instanceOf(NotFoundError);
    expect(err.reason).to.equal("not found: Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist");
  });

  it('a busy text is Transient and says Proxmox is busy with the VM', () => {
    for (const text of ['VM is locked (clone)', "can't lock file '/var/lock/qemu-server/lock-100.conf' - got timeout", 'got no worker upid - start worker failed', 'VM 100 is running - destroy failed']) {
      const err = classifyError(answer(500, text));
      expect(err.errorClass, text).to.equal('Transient');
      expect(err.reason).to.equal(`Proxmox is busy with this VM, retrying: ${text}`);
    }
  });

  it('a missing storage or a local-storage clone target is Permanent and says what to fix', () => {
    const storage = classifyError(answer(500, "storage 'typo' does not exist"));
    expect(storage.errorClass).to.equal('Permanent');
    expect(storage.reason).to.equal("Proxmox has no storage 'typo': check the storage names in proxmox.nodes (GET /nodes/pve1/qemu/100/config)");
    const local = classifyError(answer(500, "can't clone VM to node 'pve2' (VM uses local storage)"));
    expect(local.errorClass).to.equal('Permanent');
    expect(local.reason).to.contain('cannot be cloned to node pve2 because its disks are on local storage');
  });

  it('502, 503, 504, 595 and 596 are Transient Unreachable; any other 5xx Transient with no kind', () => {
    for (const status of [502, 503, 504, 595, 596]) {
      const err = classifyError(answer(status, 'down'));
      expect(err.errorClass, String(status)).to.equal('Transient');
      expect(kindOf(err), String(status)).to.equal('Unreachable');
      expect(err.reason).to.equal(`Proxmox unreachable (${status} down) on GET /nodes/pve1/qemu/100/config`);
    }
    for (const status of [500, 501, 505, 599]) {
      const err = classifyError(answer(status, 'broke'));
      expect(err.errorClass, String(status)).to.equal('Transient');
      expect(kindOf(err), String(status)).to.equal(undefined);
      expect(err.reason).to.equal('Proxmox failed on GET /nodes/pve1/qemu/100/config: broke');
    }
  });

  it('a 3xx (a redirect, not followed) is Transient and says the answer was unexpected', () => {
    for (const status of [301, 302, 304, 399]) {
      const err = classifyError(answer(status, 'Moved'));
      expect(err.errorClass, String(status)).to.equal('Transient');
      expect(err.reason).to.equal(`unexpected answer ${status} to GET /nodes/pve1/qemu/100/config: Moved`);
    }
  });
});

describe('classifier: transport codes (SPEC 17)', () => {
  for (const code of TLS_VERIFY_CODES) {
    it(`${code} is Permanent CertificateInvalid`, () => {
      const err = classifyError(transportFailure(code));
      expect(err.errorClass).to.equal('Permanent');
      expect(kindOf(err)).to.equal('CertificateInvalid');
      expect(err.reason).to.equal(`TLS verification failed (${code}): check proxmox.caFile and that proxmox.url names the host in the certificate`);
      expect(err.cause).to.be.instanceOf(TransportError);
      expect((err.cause as TransportError).code).to.equal(code);
      expect((err.cause as TransportError).name).to.equal('TransportError');
    });
  }

  it('a TLS code Node does not use for verification (a handshake failure) is Transient Unreachable', () => {
    const err = classifyError(transportFailure('ERR_SSL_WRONG_VERSION_NUMBER'));
    expect(err.errorClass).to.equal('Transient');
    expect(kindOf(err)).to.equal('Unreachable');
  });

  it('an aborted request is Transient "request cancelled", not Unreachable', () => {
    for (const code of ['ERR_ABORTED', 'ABORT_ERR']) {
      const err = classifyError(transportFailure(code));
      expect(err.errorClass, code).to.equal('Transient');
      expect(err.reason, code).to.equal('request cancelled');
      expect(kindOf(err), code).to.equal(undefined);
    }
  });

  it('ETIMEDOUT, or got\'s TimeoutError under any code, says Proxmox did not answer in time', () => {
    const timedOut = classifyError(transportFailure('ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.1:8006'));
    expect(timedOut.errorClass).to.equal('Transient');
    expect(kindOf(timedOut)).to.equal('Unreachable');
    expect(timedOut.reason).to.equal('Proxmox did not answer in time (connect ETIMEDOUT 10.0.0.1:8006)');
    const gotTimeout = classifyError(transportFailure('ERR_SOMETHING', 'Timeout awaiting response for 200ms', 'TimeoutError'));
    expect(gotTimeout.reason).to.equal('Proxmox did not answer in time (Timeout awaiting response for 200ms)');
  });

  it('any other code is Transient Unreachable naming the code', () => {
    const err = classifyError(transportFailure('EHOSTUNREACH', 'connect EHOSTUNREACH 10.0.0.1:8006'));
    expect(err.errorClass).to.equal('Transient');
    expect(kindOf(err)).to.equal('Unreachable');
    expect(err.reason).to.equal('Proxmox unreachable (EHOSTUNREACH: connect EHOSTUNREACH 10.0.0.1:8006)');
  });

  it('a code that is not a string, or a thrown non-Error, is an unexpected failure', () => {
    const numeric = classifyError(Object.assign(new Error('odd'), { code: 42 }));
    expect(numeric.errorClass).to.equal('Transient');
    expect(numeric.reason).to.equal('unexpected failure talking to Proxmox: odd');
    expect((numeric.cause as TransportError).code).to.equal('EUNKNOWN');
    expect(classifyError({ code: 'ECONNREFUSED' }).errorClass).to.equal('Transient');
    expect(classifyError(null).reason).to.equal('unexpected failure talking to Proxmox: null');
    expect(classifyError('boom').reason).to.equal('unexpected failure talking to Proxmox: boom');
    // A bare `throw undefined` or `Promise.reject()` is classified, not a TypeError.
    expect(classifyError(undefined).errorClass).to.equal('Transient');
    expect(classifyError(undefined).reason).to.equal('unexpected failure talking to Proxmox: undefined');
  });

  it('an unreadable secret file is Transient CredentialsUnavailable and names the key to check', () => {
    const err = classifyError(new SecretFileError('var/x', 'EEMPTY', 'token file var/x is empty'));
    expect(err.errorClass).to.equal('Transient');
    expect(kindOf(err)).to.equal('CredentialsUnavailable');
    expect(err.reason).to.equal('credentials unavailable: token file var/x is empty; check proxmox.tokenFile');
  });

  it('an error that is already classified passes through as the same object', () => {
    const err = new TransientError('x');
    expect(classifyError(err)).to.equal(err);
    expect(classOf(classifyError(err))).to.equal('Transient');
  });
});

describe('classifier: failed tasks by code (SPEC 16, SPEC 23)', () => {
  const FAILED = 'resize of scsi0 of VM 100 failed on node pve1';

  it('every 4xx code first but 408 and 429 is Permanent, with the whole exit status as reason', () => {
    for (const status of [400, 402, 404, 409, 499]) {
      const err = classifyTaskExit(`${status} refused`, FAILED, undefined);
      expect(err.errorClass, String(status)).to.equal('Permanent');
      expect(err.reason).to.equal(`${FAILED}: ${status} refused`);
    }
    for (const status of [408, 429, 500, 399]) expect(classifyTaskExit(`${status} later`, FAILED, undefined).errorClass, String(status)).to.equal('Transient');
  });

  it('a 403 without a privilege text quotes it; 401 says to check the token file', () => {
    const denied = classifyTaskExit('403 Forbidden', FAILED, undefined);
    expect(kindOf(denied)).to.equal('PermissionDenied');
    expect(denied.reason).to.equal(`${FAILED}: permission denied: Forbidden`);
    const parsed = classifyTaskExit('403 Permission check failed (/storage/local-lvm, Datastore.AllocateSpace)', FAILED, undefined);
    expect(parsed.reason).to.equal(`${FAILED}: permission denied: the API token lacks Datastore.AllocateSpace on /storage/local-lvm`);
    expect(classifyTaskExit('401 no ticket', FAILED, undefined).reason).to.equal(`${FAILED}: credentials rejected: check proxmox.tokenFile (no ticket)`);
  });

  it('the code must lead and be three digits: other texts go by their words', () => {
    expect(classifyTaskExit('error 403 Forbidden', FAILED, undefined).errorClass).to.equal('Transient');
    expect(classifyTaskExit('4033 Forbidden', FAILED, undefined).errorClass).to.equal('Transient');
    expect(classifyTaskExit('403', FAILED, undefined).errorClass).to.equal('Transient');
  });

  it('the permanent task texts are matched whole; a missing storage names the config key', () => {
    expect(classifyTaskExit('shrinking disks is not supported', FAILED, undefined).errorClass).to.equal('Permanent');
    expect(classifyTaskExit("storage 'local' does not support vm images", FAILED, undefined).errorClass).to.equal('Permanent');
    expect(classifyTaskExit('error: shrinking disks is not supported', FAILED, undefined).errorClass).to.equal('Transient');
    expect(classifyTaskExit('shrinking disks is not supported yet', FAILED, undefined).errorClass).to.equal('Transient');
    expect(classifyTaskExit("the storage 'local' does not support vm images", FAILED, undefined).errorClass).to.equal('Transient');
    expect(classifyTaskExit("storage 'local' does not support vm images!", FAILED, undefined).errorClass).to.equal('Transient');
    expect(classifyTaskExit("500 storage 'typo' does not exist", FAILED, undefined).reason).to.equal(
      `${FAILED}: Proxmox has no storage 'typo': check the storage names in proxmox.nodes`,
    );
    const other = classifyTaskExit('unexpected status', FAILED, 'cause');
    expect(other.reason).to.equal(`${FAILED}: unexpected status`);
    expect(other.message).to.equal(`${FAILED}: unexpected status`);
    expect(other.cause).to.equal('cause');
  });
});
