// SPEC 30, SPEC 28: the simulated guest agent takes `agent/file-write` as
// qemu-server's Agent.pm does (protected, null answer, content at most
// 61440 characters, `encode`), costs as the other agent calls, and keeps
// what was written per VM, read back at GET /_sim/guests, until the VM is
// destroyed.
import { expect } from 'chai';
import { NODES, startTestSim, type TestSim } from './sim-helpers.js';

const [N1] = NODES as [string];
const ID = 4300;
const KEYS = '/root/.ssh/authorized_keys';
const WRITE = `/nodes/${N1}/qemu/${ID}/agent/file-write`;

interface GuestFilesView {
  guestFiles: { vmid: number; node: string; files: Record<string, string> }[];
}

describe('simulator agent/file-write (SPEC 30)', () => {
  let sim: TestSim | undefined;

  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  const filesOf = async (vmid: number): Promise<Record<string, string> | undefined> =>
    ((await sim?.control('GET', 'guests')) as GuestFilesView).guestFiles.find((g) => g.vmid === vmid)?.files;

  const plantUp = async (vmid = ID): Promise<void> => {
    await sim?.control('POST', 'vms', { node: N1, vmid, config: { name: 'up', agent: '1' }, status: 'running', startedSecondsAgo: 600 });
  };

  it('writes the content (encoded by the API by default), answers {"data":null}, and GET /_sim/guests reads it back', async () => {
    sim = await startTestSim();
    await plantUp();
    const answer = await sim.api('POST', WRITE, { file: KEYS, content: 'ssh-ed25519 AAAA a@b\n' });
    expect([answer.status, answer.body]).to.deep.equal([200, '{"data":null}']);
    expect(await filesOf(ID)).to.deep.equal({ [KEYS]: 'ssh-ed25519 AAAA a@b\n' });
    // guest-file-open `wb`: a second write replaces the file.
    await sim.data('POST', WRITE, { file: KEYS, content: '' });
    expect(await filesOf(ID)).to.deep.equal({ [KEYS]: '' });
  });

  it('with encode=0 takes base64 and stores it decoded; malformed base64 is the agent\'s error after the file was truncated', async () => {
    sim = await startTestSim();
    await plantUp();
    await sim.data('POST', WRITE, { file: '/tmp/x', content: Buffer.from('hello\n').toString('base64'), encode: 0 });
    expect(await filesOf(ID)).to.deep.equal({ '/tmp/x': 'hello\n' });
    const bad = await sim.api('POST', WRITE, { file: '/tmp/x', content: 'not base64!', encode: 0 });
    expect([bad.status, bad.reason]).to.deep.equal([500, `VM ${ID} qga command 'guest-file-write' failed - Base64 data is not valid`]);
    expect(await filesOf(ID)).to.deep.equal({ '/tmp/x': '' });
  });

  it("with encode=1 a character past U+00FF dies in Agent.pm's encode_base64 before the file is opened, and U+0080-U+00FF are written as Latin-1; base64 of the UTF-8 bytes with encode=0 keeps any text", async () => {
    sim = await startTestSim();
    await plantUp();
    const key = 'ssh-ed25519 AAAA Zoë ✓ 🔑@laptop\n';
    await sim.data('POST', WRITE, { file: KEYS, content: 'old\n' });
    const wide = await sim.api('POST', WRITE, { file: KEYS, content: key });
    expect([wide.status, wide.reason]).to.deep.equal([500, 'Wide character in subroutine entry at /usr/share/perl5/PVE/API2/Qemu/Agent.pm line 624.']);
    expect(await filesOf(ID), 'never opened, so not truncated').to.deep.equal({ [KEYS]: 'old\n' });
    await sim.data('POST', WRITE, { file: KEYS, content: 'Zoë\n' });
    expect(await filesOf(ID), 'one Latin-1 byte, not UTF-8').to.deep.equal({ [KEYS]: 'Zo\ufffd\n' });
    await sim.data('POST', WRITE, { file: KEYS, content: Buffer.from(key, 'utf8').toString('base64'), encode: 0 });
    expect(await filesOf(ID)).to.deep.equal({ [KEYS]: key });
  });

  it('refuses content over 61440 characters before the handler, as the schema does', async () => {
    sim = await startTestSim();
    await plantUp();
    const answer = await sim.api('POST', WRITE, { file: KEYS, content: 'a'.repeat(61441) });
    expect(answer.status).to.equal(400);
    expect(JSON.parse(answer.body)).to.deep.include({ errors: { content: 'value may only be 61440 characters long' } });
    expect(await filesOf(ID)).to.equal(undefined);
  });

  it('answers the agent messages of F5, and holds pvedaemon 3 s x timeScale while the agent is not up (SPEC 28)', async () => {
    sim = await startTestSim({ timeScale: 0.01, proxyWorkers: 3, daemonWorkers: 3, requestCostMs: 0, requestCostPerKibMs: 0 });
    await sim.control('POST', 'vms', { node: N1, vmid: ID, config: { name: 'booting', agent: '1' }, status: 'running', startedSecondsAgo: 0 });
    const booting = await sim.api('POST', WRITE, { file: KEYS, content: 'k\n' });
    expect([booting.status, booting.reason]).to.deep.equal([500, 'QEMU guest agent is not running']);
    const capacity = (await sim.control('GET', 'capacity')) as { nodes: Record<string, { pvedaemon: { served: number; busyWorkerSeconds: number } }> };
    expect(capacity.nodes[N1]?.pvedaemon.served).to.equal(1);
    expect(capacity.nodes[N1]?.pvedaemon.busyWorkerSeconds).to.be.closeTo(0.03, 1e-9);
    await sim.control('POST', 'vms', { node: N1, vmid: ID + 1, config: { name: 'stopped', agent: '1' } });
    const stopped = await sim.api('POST', `/nodes/${N1}/qemu/${ID + 1}/agent/file-write`, { file: KEYS, content: 'k\n' });
    expect(stopped.reason).to.equal(`VM ${ID + 1} is not running`);
    await sim.control('POST', 'vms', { node: N1, vmid: ID + 2, config: { name: 'no-agent' }, status: 'running' });
    const unconfigured = await sim.api('POST', `/nodes/${N1}/qemu/${ID + 2}/agent/file-write`, { file: KEYS, content: 'k\n' });
    expect(unconfigured.reason).to.equal('No QEMU guest agent configured');
    expect(await filesOf(ID)).to.equal(undefined);
  });

  it('refuses a token without VM.GuestAgent.FileWrite (or Unrestricted) on the VM', async () => {
    sim = await startTestSim();
    await plantUp();
    await sim.faults({ denyPrivileges: [{ privilege: 'VM.GuestAgent.FileWrite' }, { privilege: 'VM.GuestAgent.Unrestricted' }] });
    const answer = await sim.api('POST', WRITE, { file: KEYS, content: 'k\n' });
    expect(answer.status).to.equal(403);
    expect(await filesOf(ID)).to.equal(undefined);
  });

  it('forgets a VM\'s files when the VM is destroyed', async () => {
    sim = await startTestSim();
    await sim.control('POST', 'vms', { node: N1, vmid: ID, config: { name: 'gone', agent: '1' }, status: 'running', startedSecondsAgo: 600 });
    await sim.data('POST', WRITE, { file: KEYS, content: 'k\n' });
    await sim.data('POST', `/nodes/${N1}/qemu/${ID}/status/stop`);
    sim.clock.advance(5);
    await sim.data('DELETE', `/nodes/${N1}/qemu/${ID}`);
    sim.clock.advance(5);
    expect((await sim.api('GET', `/nodes/${N1}/qemu/${ID}/config`)).status).to.equal(500);
    expect(await filesOf(ID)).to.equal(undefined);
  });
});
