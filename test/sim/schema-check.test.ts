// SPEC 8: every request is checked against the official API schema and
// answered as Proxmox answers (F1): 400 Parameter verification failed.
// with the errors map, 501 for a path the API does not have.
import { expect } from 'chai';
import { captured, shape, startTestSim, type Answer, type TestSim } from './sim-helpers.js';

function errorsOf(answer: Answer): Record<string, string> | undefined {
  return (JSON.parse(answer.body) as { errors?: Record<string, string> }).errors;
}

describe('simulator: schema check (SPEC 8, F1)', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim();
  });
  after(async () => {
    await sim.close();
  });

  it('answers an unknown parameter exactly as the captured 400', async () => {
    const answer = await sim.api('GET', '/cluster/resources', { type: 'vm', bogus: 1 });
    expect(shape(answer)).to.deep.equal(captured('err_param_unknown'));
  });

  it('refuses a tag with a space as the captured 400 (F9)', async () => {
    const answer = await sim.api('PUT', '/nodes/pv1-1/qemu/9001/config', { tags: 'proxy operator' });
    expect(shape(answer)).to.deep.equal(captured('err_tag_invalid'));
  });

  it('checks types, enums and formats with Proxmox texts', async () => {
    const badVmid = await sim.api('GET', '/nodes/pv1-1/qemu/abc/config');
    expect(badVmid.status).to.equal(400);
    expect(errorsOf(badVmid)).to.deep.equal({ vmid: "type check ('integer') failed - got 'abc'" });

    const badEnum = await sim.api('GET', '/cluster/resources', { type: 'vms' });
    expect(errorsOf(badEnum)).to.deep.equal({ type: "value 'vms' does not have a value in the enumeration 'vm, storage, node, sdn'" });

    const badName = await sim.api('POST', '/nodes/pv1-1/qemu/9001/clone', { newid: 123456, name: 'not a dns name' });
    expect(errorsOf(badName)).to.deep.equal({ name: 'invalid format - value does not look like a valid DNS name\n' });

    const badSize = await sim.api('PUT', '/nodes/pv1-1/qemu/9001/resize', { disk: 'scsi0', size: '10X' });
    expect(errorsOf(badSize)).to.deep.equal({ size: 'value does not match the regex pattern' });
  });

  it('checks each key of a property string such as net0', async () => {
    const answer = await sim.api('PUT', '/nodes/pv1-1/qemu/9001/config', { net0: 'virtio,bridge=vmbr0,tag=four,colour=red' });
    expect(answer.status).to.equal(400);
    expect(errorsOf(answer)).to.deep.equal({ net0: 'invalid format - invalid key in comma-separated list property: colour\n' });
    const typed = await sim.api('PUT', '/nodes/pv1-1/qemu/9001/config', { net0: 'virtio,bridge=vmbr0,tag=four' });
    expect(errorsOf(typed)).to.deep.equal({ net0: "invalid format - format error\nnet0.tag: type check ('integer') failed - got 'four'\n" });
  });

  it('expands indexed keys only up to their limit (ide0 to ide3)', async () => {
    const answer = await sim.api('PUT', '/nodes/pv1-1/qemu/9001/config', { ide4: 'none,media=cdrom' });
    expect(errorsOf(answer)).to.deep.equal({
      ide4: 'property is not defined in schema and the schema does not allow additional properties',
    });
  });

  it('names a missing required parameter', async () => {
    const answer = await sim.api('POST', '/nodes/pv1-1/qemu/9001/clone', {});
    expect(errorsOf(answer)).to.deep.equal({ newid: 'property is missing and it is not optional' });
  });

  it('answers 501 for a path or method the API does not have, as pveproxy does', async () => {
    const unknownPath = await sim.api('GET', '/nodes/pv1-1/qemu/9001/bogus');
    expect(shape(unknownPath)).to.deep.equal({
      status: 501,
      reason: "Method 'GET /nodes/pv1-1/qemu/9001/bogus' not implemented",
      body: JSON.stringify({ data: null, message: "Method 'GET /nodes/pv1-1/qemu/9001/bogus' not implemented" }),
    });
    const wrongMethod = await sim.api('DELETE', '/version');
    expect(wrongMethod.status).to.equal(501);
    expect(wrongMethod.reason).to.equal("Method 'DELETE /version' not implemented");
  });

  it('answers a node outside the cluster as pveproxy fails to proxy to it', async () => {
    const answer = await sim.api('GET', '/nodes/pv9-9/qemu/100/config');
    expect(answer.status).to.equal(500);
    expect(answer.reason).to.equal("hostname lookup 'pv9-9' failed - failed to get address info for: pv9-9: Name or service not known");
  });
});
