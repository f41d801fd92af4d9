// SPEC 17: the class of every fixture's error, read through the real
// client, and every whole-message matcher of messages.ts against every
// fixture so none fires on the wrong text. Transport failures (refused,
// reset, timed out, aborted) are classified too.
import { expect } from 'chai';
import { inspect } from 'node:util';
import { classOf } from '../../src/errors.js';
import type { ErrorClass } from '../../src/errors.js';
import { ProxmoxApiError } from '../../src/proxmox/api-error.js';
import { classifyError, kindOf } from '../../src/proxmox/classify.js';
import type { FailureKind } from '../../src/proxmox/classify.js';
import * as messages from '../../src/proxmox/messages.js';
import { readSecretFile } from '../../src/secrets/read.js';
import { fixtureNames, isErrorFixture, loadFixture } from '../support/fixtures.js';
import { startRawServer, startReplayServer } from '../support/replay-server.js';
import { TOKEN_SECRET, workspace } from './support.js';
import type { Workspace } from './support.js';
import { rejection } from '../support/rejection.js';

interface Expected {
  errorClass: ErrorClass;
  kind?: FailureKind;
}

/** SPEC 17's table, fixture by fixture. */
const CLASS_OF_FIXTURE: Record<string, Expected> = {
  err_config_missing: { errorClass: 'NotFound' },
  err_config_exists: { errorClass: 'Transient' },
  err_agent_not_running: { errorClass: 'Transient' },
  err_agent_not_configured: { errorClass: 'Transient' },
  err_vm_not_running: { errorClass: 'Transient' },
  err_vm_locked_clone: { errorClass: 'Transient' },
  err_lock_timeout: { errorClass: 'Transient' },
  err_no_worker: { errorClass: 'Transient' },
  err_destroy_running: { errorClass: 'Transient' },
  err_internal_other: { errorClass: 'Transient' },
  err_bad_gateway_502: { errorClass: 'Transient', kind: 'Unreachable' },
  err_unavailable_503: { errorClass: 'Transient', kind: 'Unreachable' },
  err_gateway_timeout_504: { errorClass: 'Transient', kind: 'Unreachable' },
  err_proxy_595: { errorClass: 'Transient', kind: 'Unreachable' },
  err_proxy_596: { errorClass: 'Transient', kind: 'Unreachable' },
  err_tag_invalid: { errorClass: 'Permanent' },
  err_upload_wrong_extension: { errorClass: 'Permanent' },
  err_clone_storage_no_images: { errorClass: 'Permanent' },
  err_storage_missing: { errorClass: 'Permanent' },
  err_clone_local_storage: { errorClass: 'Permanent' },
  err_param_unknown: { errorClass: 'Permanent' },
  err_auth_failed: { errorClass: 'Permanent', kind: 'CredentialsRejected' },
  err_no_ticket: { errorClass: 'Permanent', kind: 'CredentialsRejected' },
  err_forbidden_volume_delete: { errorClass: 'Permanent', kind: 'PermissionDenied' },
};

/** The fixtures each matcher of messages.ts must fire on; every other fixture must not match. */
const MATCHES: Record<string, string[]> = {
  CONFIG_MISSING: ['err_config_missing'],
  CONFIG_EXISTS: ['err_config_exists'],
  VM_LOCKED: ['err_vm_locked_clone'],
  LOCK_TIMEOUT: ['err_lock_timeout'],
  NO_WORKER: ['err_no_worker'],
  DESTROY_RUNNING: ['err_destroy_running'],
  AGENT_NOT_RUNNING: ['err_agent_not_running'],
  AGENT_NOT_CONFIGURED: ['err_agent_not_configured'],
  VM_NOT_RUNNING: ['err_vm_not_running'],
  STORAGE_MISSING: ['err_storage_missing'],
  CLONE_LOCAL_STORAGE: ['err_clone_local_storage'],
  // A task's exit status, never an answer: see the task-exit table below.
  VMID_HELD_ELSEWHERE: [],
  // No capture yet; its text is held against the simulator by the contract suite (audit 7.1).
  PROTECTION_ENABLED: [],
  // SPEC 28, from the source (Storage.pm storage_check_enabled); no host capture: test/provider/storage-refusal.test.ts.
  STORAGE_DISABLED: [],
  STORAGE_NOT_ON_NODE: [],
  CLONE_FAILED_PREFIX: [],
};

const matchers = Object.entries(messages).filter((entry): entry is [string, RegExp] => entry[1] instanceof RegExp);
const errorNames = fixtureNames().filter((name) => isErrorFixture(loadFixture(name)));

describe('error classes (SPEC 17)', () => {
  let ws: Workspace;
  const errors = new Map<string, ProxmoxApiError>();

  before(async () => {
    ws = workspace();
    let current = '';
    const server = await startReplayServer(() => current);
    try {
      for (const name of errorNames) {
        current = name;
        errors.set(name, (await rejection(ws.client(server.url).getConfig('pv1-1', 199999))) as ProxmoxApiError);
      }
    } finally {
      await server.close();
    }
  });
  after(() => ws.remove());

  it('has an expected class for every error fixture', () => {
    expect(errorNames.filter((name) => CLASS_OF_FIXTURE[name] === undefined)).to.deep.equal([]);
  });

  for (const name of errorNames) {
    it(`${name} is ${CLASS_OF_FIXTURE[name]?.errorClass ?? '?'}${CLASS_OF_FIXTURE[name]?.kind ? ` (${CLASS_OF_FIXTURE[name]?.kind})` : ''}`, () => {
      const apiErr = errors.get(name);
      const expected = CLASS_OF_FIXTURE[name];
      const classified = classifyError(apiErr);
      expect(classified.errorClass).to.equal(expected?.errorClass);
      expect(classOf(classified)).to.equal(expected?.errorClass);
      expect(kindOf(classified)).to.equal(expected?.kind);
      expect(classified.cause).to.equal(apiErr);
      expect(classified.reason).to.be.a('string').and.not.equal('');
    });
  }

  it('401 tells the operator to check the token file (F22)', () => {
    expect(classifyError(errors.get('err_auth_failed')).reason).to.contain('credentials rejected: check proxmox.tokenFile');
  });

  it('403 names the privilege and the path it is missing on (F13)', () => {
    const reason = classifyError(errors.get('err_forbidden_volume_delete')).reason;
    expect(reason).to.contain('the API token lacks Datastore.Allocate on /storage/local');
  });

  it('400 names the refused parameter (F9)', () => {
    expect(classifyError(errors.get('err_tag_invalid')).reason).to.contain('tags: invalid format - invalid characters in tag');
  });

  it('an already classified error passes through unchanged', () => {
    const classified = classifyError(errors.get('err_config_missing'));
    expect(classifyError(classified)).to.equal(classified);
  });

  it('has a row for every matcher in messages.ts', () => {
    expect(matchers.map(([name]) => name).sort()).to.deep.equal(Object.keys(MATCHES).sort());
  });

  for (const [matcherName, pattern] of matchers) {
    it(`${matcherName} fires on exactly its own fixtures`, () => {
      const fired = errorNames.filter((name) => messages.messageMatches(errors.get(name), pattern));
      expect(fired).to.deep.equal(MATCHES[matcherName]);
    });
  }

  it('matchers match whole messages: a prefix, suffix or a plain Error does not fire', () => {
    const notRunning = errors.get('err_vm_not_running');
    expect(messages.messageMatches(new Error('VM 199999 is not running'), messages.VM_NOT_RUNNING)).to.equal(false);
    expect(messages.VM_NOT_RUNNING.test('QEMU guest agent is not running')).to.equal(false);
    expect(messages.VM_NOT_RUNNING.test(`${notRunning?.message ?? ''} - destroy failed`)).to.equal(false);
    expect(messages.CONFIG_MISSING.test(`error: ${errors.get('err_config_missing')?.message ?? ''}`)).to.equal(false);
  });
});

describe('a protected VM (SPEC 28, audit 7.1)', () => {
  const answer = (message: string) => new ProxmoxApiError({ status: 500, reason: message, message, method: 'DELETE', path: '/nodes/pv1-1/qemu/199999' });

  it("check_protection's die is Permanent and says to clear the protection", () => {
    const err = classifyError(answer("can't remove VM 199999 - protection mode enabled"));
    expect(err.errorClass).to.equal('Permanent');
    expect(err.reason).to.contain('clear its protection').and.contain("can't remove VM 199999 - protection mode enabled");
  });

  it('only the whole text fires: a prefix or a text that goes on is not taken for it', () => {
    expect(messages.PROTECTION_ENABLED.test(' - protection mode enabled')).to.equal(false);
    expect(messages.PROTECTION_ENABLED.test("can't remove VM 1 - protection mode enabled, and more")).to.equal(false);
    expect(classifyError(answer('protection mode enabled')).errorClass).to.equal('Transient');
  });
});

describe('transport failures are classified (SPEC 17)', () => {
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace();
  });
  afterEach(() => ws.remove());

  it('a refused connection is Transient and Unreachable', async () => {
    const server = await startRawServer(() => undefined);
    const url = server.url;
    await server.close();
    const err = classifyError(await rejection(ws.client(url).version()));
    expect(err.errorClass).to.equal('Transient');
    expect(kindOf(err)).to.equal('Unreachable');
    expect(err.reason).to.contain('ECONNREFUSED');
  });

  it('a reset connection (socket hang up) is Transient and Unreachable', async () => {
    const server = await startRawServer((req) => req.socket.destroy());
    try {
      const err = await rejection(ws.client(server.url).version());
      expect(classOf(err)).to.equal('Transient');
      expect(kindOf(err)).to.equal('Unreachable');
    } finally {
      await server.close();
    }
  });

  it('no answer within the response timeout is Transient', async () => {
    const server = await startRawServer(() => undefined);
    try {
      const err = classifyError(await rejection(ws.client(server.url, { timeouts: { responseMs: 200 } }).version()));
      expect(err.errorClass).to.equal('Transient');
      expect(err.reason).to.contain('did not answer in time');
    } finally {
      await server.close();
    }
  });

  it('a transport error carries no trace of the request (its options hold the token)', async () => {
    const server = await startRawServer((req) => req.socket.destroy());
    try {
      const err = await rejection(ws.client(server.url).putConfig('pv1-1', 199999, { cores: 2 }));
      const seen = inspect(err, { depth: 12, showHidden: true });
      expect(seen).to.not.contain(TOKEN_SECRET);
      expect(seen).to.not.contain('PVEAPIToken');
    } finally {
      await server.close();
    }
  });

  it('a secret file that cannot be read is Transient (CredentialsUnavailable), not Unreachable', async () => {
    const err = classifyError(await rejection(readSecretFile(`${ws.dir}/absent-token`)));
    expect(err.errorClass).to.equal('Transient');
    expect(kindOf(err)).to.equal('CredentialsUnavailable');
  });

  it('an unknown thrown value is Transient', () => {
    expect(classifyError('boom').errorClass).to.equal('Transient');
    expect(classifyError(new Error('odd')).errorClass).to.equal('Transient');
  });
});
