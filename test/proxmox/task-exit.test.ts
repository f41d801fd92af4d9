// SPEC 16, SPEC 23: the class of a failed task by its exit status. A task
// that dies on a Proxmox exception ends with the HTTP code first, and is
// classified by that code and text, so a missing privilege is Permanent
// and names the privilege; the in-task VMID collision is its own text.
import { expect } from 'chai';
import { kindOf, classifyTaskExit } from '../../src/proxmox/classify.js';
import { VMID_HELD_ELSEWHERE } from '../../src/proxmox/messages.js';
import { fixtureData, fixtureNames, isErrorFixture, loadFixture } from '../support/fixtures.js';

interface TaskStatusData {
  status?: string;
  exitstatus?: string;
}

const FAILED = 'resize of scsi0 of VM 199999 to 10G failed on node pv1-1';

/** Every task-status fixture that ended in failure, by the class its exit status must get. */
const CLASS_OF_TASK_FIXTURE: Record<string, { errorClass: 'Transient' | 'Permanent'; kind?: string }> = {
  task_status_stopped_error: { errorClass: 'Permanent' },
  task_status_permission_denied: { errorClass: 'Permanent', kind: 'PermissionDenied' },
  task_status_vmid_held_elsewhere: { errorClass: 'Transient' },
};

function failedExit(name: string): string | undefined {
  const fixture = loadFixture(name);
  if (isErrorFixture(fixture) || !name.startsWith('task_status_')) return undefined;
  const data = fixtureData<TaskStatusData>(name);
  if (data.status !== 'stopped' || data.exitstatus === undefined) return undefined;
  return /^(OK|WARNINGS: \d+)$/.test(data.exitstatus) ? undefined : data.exitstatus;
}

const failedTasks = fixtureNames().filter((name) => failedExit(name) !== undefined);

describe('failed tasks are classified by their exit status (SPEC 16, SPEC 23)', () => {
  it('has an expected class for every failed-task fixture', () => {
    expect(failedTasks.sort()).to.deep.equal(Object.keys(CLASS_OF_TASK_FIXTURE).sort());
  });

  for (const name of failedTasks) {
    const expected = CLASS_OF_TASK_FIXTURE[name];
    it(`${name} is ${expected?.errorClass ?? '?'}`, () => {
      const cause = new Error('the task failure');
      const classified = classifyTaskExit(failedExit(name) ?? '', FAILED, cause);
      expect(classified.errorClass).to.equal(expected?.errorClass);
      expect(kindOf(classified)).to.equal(expected?.kind);
      expect(classified.cause).to.equal(cause);
      expect(classified.reason).to.contain(FAILED);
    });
  }

  it('a 403 inside a task names the privilege and the path it is missing on', () => {
    const reason = classifyTaskExit(failedExit('task_status_permission_denied') ?? '', FAILED, undefined).reason;
    expect(reason).to.equal(`${FAILED}: permission denied: the API token lacks Datastore.AllocateSpace on /storage/local-lvm`);
  });

  it('the code decides: 400 and 401 are Permanent, 500 with an unknown text Transient, 408 and 429 Transient', () => {
    expect(classifyTaskExit("400 Parameter verification failed.", FAILED, undefined).errorClass).to.equal('Permanent');
    expect(kindOf(classifyTaskExit('401 Authentication failed!', FAILED, undefined))).to.equal('CredentialsRejected');
    expect(classifyTaskExit('500 something broke', FAILED, undefined).errorClass).to.equal('Transient');
    expect(classifyTaskExit('408 request timeout', FAILED, undefined).errorClass).to.equal('Transient');
    expect(classifyTaskExit('429 too many requests', FAILED, undefined).errorClass).to.equal('Transient');
    expect(classifyTaskExit('unexpected status', FAILED, undefined).errorClass).to.equal('Transient');
  });

  it("a destroy task that meets check_protection is Permanent and says to clear the protection (SPEC 28, audit 7.1)", () => {
    const err = classifyTaskExit("can't remove VM 199999 - protection mode enabled", 'destroy of VM 199999 failed on node pv1-1', undefined);
    expect(err.errorClass).to.equal('Permanent');
    expect(err.reason).to.contain('destroy of VM 199999 failed on node pv1-1').and.contain('clear its protection');
  });

  it('a text without the code is classified by the text alone: a permission text without its 403 is not taken for one', () => {
    expect(kindOf(classifyTaskExit('Permission check failed (/storage/x, Datastore.AllocateSpace)', FAILED, undefined))).to.equal(undefined);
    expect(classifyTaskExit("storage 'typo' does not exist", FAILED, undefined).errorClass).to.equal('Permanent');
    expect(classifyTaskExit("can't clone VM to node 'pve2' (VM uses local storage)", FAILED, undefined).errorClass).to.equal('Permanent');
  });

  it('VMID_HELD_ELSEWHERE fires on the in-task collision and on no other failed task', () => {
    const fired = failedTasks.filter((name) => VMID_HELD_ELSEWHERE.test(failedExit(name) ?? ''));
    expect(fired).to.deep.equal(['task_status_vmid_held_elsewhere']);
    expect(VMID_HELD_ELSEWHERE.test("clone failed: close (rename) atomic file '/etc/pve/nodes/a/qemu-server/1.conf' failed: File exists")).to.equal(false);
    expect(VMID_HELD_ELSEWHERE.test("close (rename) atomic file '/etc/pve/nodes/a/lxc/1.conf' failed: File exists")).to.equal(false);
  });
});
