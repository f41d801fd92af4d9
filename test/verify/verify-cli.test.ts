// SPEC 33: `pve-provisioner verify` against a simulator started here,
// through the command's run() with the config pointed at it by
// PVE_PROVISIONER_CONFIG: it passes (exit 0); each fault the checks name
// fails it with its one-line fix (exit 1); --json is one complete
// document; bad usage exits 2; the token's secret is never printed.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sinon from 'sinon';
import { run } from '../../src/cli/verify.js';
import type { VerifyDeps } from '../../src/cli/verify.js';
import { makeCertificate } from '../support/tls.js';
import { startSimulator, type RunningSimulator, type StartOptions } from '../../src/sim/index.js';
import type { CheckResult, HostInventory } from '../../src/verify/types.js';

const SECRET = '7d3c1f0e-verify-test-secret';
const TOKEN = `root@pam!provisioner=${SECRET}`;
const TOKEN_ID = 'root@pam!provisioner';

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

describe('pve-provisioner verify against the simulator (SPEC 33)', function () {
  this.timeout(60_000);
  let dir: string;
  let sim: RunningSimulator | undefined;
  let savedConfig: string | undefined;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'pvep-verify-'));
    writeFileSync(join(dir, 'token'), `${TOKEN}\n`, { mode: 0o600 });
    savedConfig = process.env.PVE_PROVISIONER_CONFIG;
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    if (savedConfig === undefined) delete process.env.PVE_PROVISIONER_CONFIG;
    else process.env.PVE_PROVISIONER_CONFIG = savedConfig;
  });
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  async function startSim(options: Partial<StartOptions> = {}): Promise<RunningSimulator> {
    sim = await startSimulator({ tokens: [TOKEN], nodes: ['pve1', 'pve2'], vms: 0, timeScale: 0.01, proxyWorkers: 0, daemonWorkers: 0, statdSeconds: 0, ...options });
    return sim;
  }

  /** Runs verify with a config naming the simulator and `nodes` (default: pve1 and pve2 with their templates). */
  async function verify(args: string[], nodes?: unknown[], url = sim?.url, deps?: VerifyDeps, proxmox: Record<string, unknown> = {}): Promise<Ran> {
    const file = join(dir, 'config.json');
    const proxmoxNodes = nodes ?? [
      { name: 'pve1', template: 9001, isoStorage: 'proxy-seeds' },
      { name: 'pve2', template: 9002, isoStorage: 'proxy-seeds' },
    ];
    writeFileSync(file, JSON.stringify({ proxmox: { url, tokenFile: join(dir, 'token'), nodes: proxmoxNodes, ...proxmox }, budgets: { taskSeconds: 30 } }));
    process.env.PVE_PROVISIONER_CONFIG = file;
    let stdout = '';
    let stderr = '';
    const out = sinon.stub(process.stdout, 'write').callsFake((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
    const err = sinon.stub(process.stderr, 'write').callsFake((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
    try {
      const code = await (deps === undefined ? run(args) : run(args, deps));
      return { code, stdout, stderr };
    } finally {
      out.restore();
      err.restore();
    }
  }

  const failLines = (ran: Ran): string[] => ran.stdout.split('\n').filter((line, i, all) => line.startsWith('FAIL') || all[i - 1]?.startsWith('FAIL') === true);

  it('passes against the simulator: every check ok, exit 0, and the probe ISO is gone', async () => {
    const running = await startSim();
    const ran = await verify([]);
    expect(ran.code, ran.stdout).to.equal(0);
    expect(ran.stdout).to.match(/^ok {4}api {8}API at http:\/\/127\.0\.0\.1:\d+ answers/m);
    expect(ran.stdout).to.include('ok    nodes      node pve1 online: online\n');
    expect(ran.stdout).to.match(/ok {4}storages {3}seed storage proxy-seeds on pve2 writable: uploaded and deleted pve-provisioner-verify-[0-9a-f]{8}\.iso/);
    expect(ran.stdout).to.match(/^verify: \d+ ok, 0 failed, 0 skipped\n$/m);
    const state = (await (await fetch(`${running.url}/_sim/state`)).json()) as { nodes: Record<string, Record<string, { volid: string }[]>> };
    expect(JSON.stringify(state.nodes)).to.not.include('pve-provisioner-verify-');
    expect(ran.stdout + ran.stderr).to.not.include(SECRET);
  });

  it('a missing privilege: exit 1, and the aclmod that grants it', async () => {
    const running = await startSim();
    running.sim.faults.replace({ denyPrivileges: [{ privilege: 'VM.Clone', path: '/vms/9001' }] });
    const ran = await verify([]);
    expect(ran.code).to.equal(1);
    expect(failLines(ran)).to.deep.equal([
      'FAIL  privileges VM.Clone on /vms/9001: not held: needed to full-clone the template (create)',
      `      fix: pveum aclmod /vms -token '${TOKEN_ID}' -role PVEProvisionerVM (README, "On your own cluster"), or add VM.Clone to the role the token has on /vms`,
    ]);
  });

  it('a disabled storage: exit 1, and `pvesm set <s> --disable 0`', async () => {
    const running = await startSim();
    await fetch(`${running.url}/_sim/storages`, { method: 'POST', body: JSON.stringify({ storage: 'proxy-seeds', disable: true }) });
    const ran = await verify([]);
    expect(ran.code).to.equal(1);
    expect(failLines(ran)).to.include.members(['FAIL  storages   storage proxy-seeds on pve1 (iso): storage proxy-seeds is disabled', '      fix: pvesm set proxy-seeds --disable 0']);
    expect(ran.stdout).to.include('skip  storages   seed storage proxy-seeds on pve1 writable: the storage check above failed');
  });

  it('a template without the guest agent: exit 1, and `qm set <vmid> --agent enabled=1`', async () => {
    const running = await startSim();
    running.sim.state.vm('pve1', 9001).config.agent = '0';
    const ran = await verify([]);
    expect(ran.code).to.equal(1);
    expect(failLines(ran)).to.deep.equal(['FAIL  templates  template 9001 on pve1: guest agent: agent is 0: no address would ever be reported', '      fix: qm set 9001 --agent enabled=1 (on pve1)']);
  });

  it('a protected template: exit 1, and `qm set <vmid> --protection 0`', async () => {
    const running = await startSim();
    running.sim.state.vm('pve2', 9002).config.protection = 1;
    const ran = await verify([]);
    expect(ran.code).to.equal(1);
    expect(failLines(ran)).to.deep.equal(['FAIL  templates  template 9002 on pve2: protection: protection: 1, which every clone inherits', '      fix: qm set 9002 --protection 0 (on pve2)']);
  });

  it('a missing bridge: exit 1, and where to create it', async () => {
    await startSim({ bridges: [{ node: 'pve1', iface: 'vmbr0', vlanAware: true }] });
    const ran = await verify([]);
    expect(ran.code).to.equal(1);
    expect(failLines(ran)).to.deep.equal([
      'FAIL  networks   bridge vmbr0 on pve2: no interface vmbr0 on pve2 (or the token lacks SDN.Use on /sdn/zones/localnetwork/vmbr0)',
      "      fix: create bridge vmbr0 on pve2 (System > Network > Create > Linux Bridge), or fix the template's net0 (or set proxmox.nodes[1].bridge)",
    ]);
  });

  it('a VLAN tag on a plain Linux bridge without a port: exit 1, and to make it VLAN-aware', async () => {
    await startSim({ bridges: [{ node: 'pve1', iface: 'vmbr0', vlanAware: true }, { node: 'pve1', iface: 'vmbr1', vlanAware: false }] });
    const ran = await verify([], [{ name: 'pve1', template: 9001, isoStorage: 'proxy-seeds', bridge: 'vmbr1', vlanTag: 30 }]);
    expect(ran.code).to.equal(1);
    expect(failLines(ran)).to.deep.equal([
      "FAIL  networks   VLAN 30 on vmbr1 on pve1: vmbr1 is not VLAN-aware and has no physical port, so Proxmox cannot make vmbr1v30 for the tag (no physical interface on bridge 'vmbr1')",
      '      fix: make vmbr1 VLAN-aware on pve1 (bridge-vlan-aware yes in /etc/network/interfaces, then ifreload -a), or set proxmox.nodes[0].bridge to a bridge that is',
    ]);
  });

  it('a node offline: exit 1, its own checks skipped, and what to do', async () => {
    const running = await startSim();
    running.sim.faults.replace({ offlineNodes: ['pve2'] });
    const ran = await verify([]);
    expect(ran.code).to.equal(1);
    expect(failLines(ran)).to.deep.equal(['FAIL  nodes      node pve2 online: node pve2 is offline', '      fix: start node pve2 or bring it back into the cluster (pvecm status), or remove it from proxmox.nodes']);
    expect(ran.stdout).to.include('skip  templates  template 9002 on pve2: node pve2 is offline');
  });

  it('--json prints one document with every check, the inventory, and ok', async () => {
    await startSim();
    const ran = await verify(['--json']);
    expect(ran.code).to.equal(0);
    const doc = JSON.parse(ran.stdout) as { ok: boolean; checks: CheckResult[]; inventory: HostInventory };
    expect(doc.ok).to.equal(true);
    expect([...new Set(doc.checks.map((c) => c.group))]).to.deep.equal(['api', 'privileges', 'nodes', 'storages', 'networks', 'templates']);
    expect(doc.inventory.version?.version).to.equal('9.2.20');
    expect(doc.inventory.nodes).to.deep.equal([{ node: 'pve1', status: 'online' }, { node: 'pve2', status: 'online' }]);
    expect(doc.inventory.templates.map((t) => [t.node, t.vmid])).to.deep.equal([['pve1', 9001], ['pve2', 9002]]);
    expect(doc.inventory.bridges).to.deep.equal([{ node: 'pve1', iface: 'vmbr0', vlanAware: true }, { node: 'pve2', iface: 'vmbr0', vlanAware: true }]);
    expect(doc.inventory.storages.filter((s) => s.storage === 'proxy-seeds').map((s) => s.node)).to.deep.equal(['pve1', 'pve2']);
  });

  it('when the API does not answer, says to check proxmox.url and skips the rest', async () => {
    const running = await startSim();
    const url = running.url;
    await running.close();
    sim = undefined;
    const ran = await verify([], undefined, url);
    expect(ran.code).to.equal(1);
    expect(ran.stdout).to.include(`FAIL  api        API at ${url} answers: connection refused at ${url}\n      fix: check proxmox.url (${url}): nothing listens there (pveproxy runs on port 8006)\n`);
    expect(ran.stdout).to.match(/^skip {2}templates {2}templates checks: the API did not answer$/m);
  });

  it('--create runs only after every check passed, on the --node nodes, and a create that cannot report is a failed check (exit 1)', async () => {
    const running = await startSim();
    running.sim.faults.replace({ offlineNodes: ['pve2'] });
    const never = sinon.stub<Parameters<VerifyDeps['verifyCreate']>, ReturnType<VerifyDeps['verifyCreate']>>().resolves([]);
    const failing = await verify(['--create', '--node', 'pve1'], undefined, running.url, { verifyCreate: never });
    expect(failing.code).to.equal(1);
    expect(never.called).to.equal(false);
    running.sim.faults.replace({});
    const create = sinon.stub<Parameters<VerifyDeps['verifyCreate']>, ReturnType<VerifyDeps['verifyCreate']>>().rejects(new Error('no address within 300 s'));
    const ran = await verify(['--create', '--node', 'pve1'], undefined, running.url, { verifyCreate: create });
    expect(ran.code).to.equal(1);
    expect(create.firstCall.args[0].nodes).to.deep.equal(['pve1']);
    expect(create.firstCall.args[0].signal.aborted).to.equal(false);
    expect(failLines(ran)).to.deep.equal(['FAIL  create     create on pve1: no address within 300 s', '      fix: check that no VM named verify-* is left on pve1 (qm list), then run verify --create again']);
  });

  it('--create prints each step with its time and calls as a table, and its checks; exit 0 when they hold', async () => {
    const running = await startSim();
    const report = { node: 'pve2', name: 'verify-1a2b', vmid: 100, steps: [{ step: 'clone', ms: 1200, calls: { clone: 1, taskStatus: 3 } }], checks: [{ group: 'create', name: 'create on pve2', status: 'ok' as const, detail: 'address 192.0.2.7' }] };
    const create = sinon.stub<Parameters<VerifyDeps['verifyCreate']>, ReturnType<VerifyDeps['verifyCreate']>>().resolves([report]);
    const ran = await verify(['--create'], undefined, running.url, { verifyCreate: create });
    expect(ran.code, ran.stdout).to.equal(0);
    expect(create.firstCall.args[0].nodes).to.deep.equal(['pve1', 'pve2']);
    expect(ran.stdout).to.include('ok    create     create on pve2: address 192.0.2.7\n');
    expect(ran.stdout).to.include('node  step   ms    calls\npve2  clone  1200  clone×1 taskStatus×3\n');
  });

  it('a token the API refuses: exit 1, naming the token file, never the secret', async () => {
    const running = await startSim();
    writeFileSync(join(dir, 'wrong-token'), 'root@pam!provisioner=not-the-secret-0000\n', { mode: 0o600 });
    const ran = await verify([], undefined, running.url, undefined, { tokenFile: join(dir, 'wrong-token') });
    expect(ran.code).to.equal(1);
    expect(failLines(ran)).to.deep.equal([
      `FAIL  api        API at ${running.url} answers: ${running.url} refused the token (401 Authentication failed!)`,
      `      fix: put a valid token (user@realm!id=secret) in ${join(dir, 'wrong-token')}, the file proxmox.tokenFile names`,
    ]);
    expect(ran.stdout + ran.stderr).to.not.include('not-the-secret');
  });

  it('TLS: a certificate the system does not trust says to set proxmox.caFile; with it, the API check passes', async () => {
    const tls = makeCertificate(dir, 'verify-sim');
    const running = await startSim({ tlsCert: tls.certFile, tlsKey: join(dir, 'verify-sim.key') });
    expect(running.url).to.match(/^https:/);
    const untrusted = await verify([], undefined, running.url);
    expect(untrusted.code).to.equal(1);
    expect(failLines(untrusted)[1]).to.equal(`      fix: set proxmox.caFile to the PEM file of the CA that signed ${running.url}'s certificate (/etc/pve/pve-root-ca.pem on the host)`);
    const trusted = await verify([], undefined, running.url, undefined, { caFile: tls.certFile });
    expect(trusted.stdout).to.include(`ok    api        API at ${running.url} answers: GET /version answered, TLS verified with ${tls.certFile}\n`);
  });

  it('bad usage exits 2 with one line naming it, then the usage', async () => {
    await startSim();
    const unknown = await verify(['--bogus']);
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr.split('\n')[0]).to.equal('pve-provisioner verify: unknown flag --bogus');
    const node = await verify(['--create', '--node', 'pve9']);
    expect(node.code).to.equal(2);
    expect(node.stderr.split('\n')[0]).to.equal('pve-provisioner verify: --node pve9: not in proxmox.nodes (pve1, pve2)');
    const help = await verify(['--help']);
    expect(help.code).to.equal(0);
    expect(help.stdout).to.match(/^usage: pve-provisioner verify /);
  });
  it('--cluster checks that cluster of proxmox.clusters (SPEC 32): its URL and nodes; an unknown one exits 2 naming the configured', async () => {
    const running = await startSim();
    const clusters = [
      { name: 'away', url: 'http://127.0.0.1:9' },
      { name: 'here', url: running.url },
    ];
    const here = await verify(['--cluster', 'here'], undefined, running.url, undefined, { clusters });
    expect(here.code, here.stdout).to.equal(0);
    expect(here.stderr).to.include('pve-provisioner verify: cluster here\n');
    expect(here.stdout).to.include(`ok    api        API at ${running.url} answers`);
    const first = await verify([], undefined, running.url, undefined, { clusters });
    expect(first.code).to.equal(1);
    expect(first.stderr).to.include('cluster away');
    const unknown = await verify(['--cluster', 'zz'], undefined, running.url, undefined, { clusters });
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr.split('\n')[0]).to.equal('pve-provisioner verify: --cluster zz: not a configured cluster (away, here)');
  });
});
