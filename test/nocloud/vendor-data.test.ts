// SPEC 20: the vendor-data's runcmd, as cloud-init's YAML parser reads it,
// run by sh against stand-in package managers and service tools, one
// guest family at a time: it installs with the manager the guest has and
// starts the agent; an agent already present is only started.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GUEST_AGENT_VENDOR_DATA } from '../../src/nocloud/vendor-data.js';
import { mustRun, withTempDir } from './tools.js';

/** The runcmd entries, parsed by the same PyYAML cloud-init uses. */
function runcmdOf(cloudConfig: string): string[] {
  const script = 'import sys, yaml, json; print(json.dumps(yaml.safe_load(sys.stdin.read())["runcmd"]))';
  return JSON.parse(mustRun('/usr/bin/python3', ['-c', script], cloudConfig).toString('utf8')) as string[];
}

/** Runs the runcmd with only the given commands on PATH; returns what they were asked to do. */
async function runWith(commands: string[]): Promise<string[]> {
  const { dir, cleanup } = await withTempDir('seed-vendor-');
  try {
    const log = join(dir, 'calls.log');
    await writeFile(log, '');
    for (const command of commands) {
      const path = join(dir, command);
      await writeFile(path, `#!/bin/sh\necho "\${0##*/} $* \${DEBIAN_FRONTEND:+(DEBIAN_FRONTEND=$DEBIAN_FRONTEND)}" >> '${log}'\n`);
      await chmod(path, 0o755);
    }
    // PATH holds the stand-ins only, so nothing real is ever installed or started.
    for (const entry of runcmdOf(GUEST_AGENT_VENDOR_DATA)) {
      const run = spawnSync('/bin/sh', ['-c', entry], { env: { PATH: dir } });
      expect(run.status, run.stderr.toString()).to.equal(0);
    }
    return (await readFile(log, 'utf8')).split('\n').filter((l) => l !== '').map((l) => l.trim());
  } finally {
    await cleanup();
  }
}

describe('guest agent vendor-data run by sh (SPEC 20)', function () {
  it('Debian/Ubuntu: apt-get update and install, non-interactive, then systemctl', async function () {
    expect(await runWith(['apt-get', 'systemctl'])).to.deep.equal([
      'apt-get update -q (DEBIAN_FRONTEND=noninteractive)',
      'apt-get install -y -q qemu-guest-agent (DEBIAN_FRONTEND=noninteractive)',
      'systemctl enable qemu-guest-agent (DEBIAN_FRONTEND=noninteractive)',
      'systemctl start qemu-guest-agent (DEBIAN_FRONTEND=noninteractive)',
    ]);
  });

  it('Fedora/RHEL: dnf, preferred to yum when both exist', async function () {
    expect(await runWith(['dnf', 'yum', 'systemctl'])).to.deep.equal([
      'dnf install -y qemu-guest-agent',
      'systemctl enable qemu-guest-agent',
      'systemctl start qemu-guest-agent',
    ]);
  });

  it('older RHEL: yum', async function () {
    expect((await runWith(['yum', 'systemctl']))[0]).to.equal('yum install -y qemu-guest-agent');
  });

  it('SUSE: zypper, non-interactive', async function () {
    expect((await runWith(['zypper', 'systemctl']))[0]).to.equal('zypper --non-interactive install qemu-guest-agent');
  });

  it('Alpine: apk, then OpenRC', async function () {
    expect(await runWith(['apk', 'rc-update', 'rc-service'])).to.deep.equal([
      'apk add --no-cache qemu-guest-agent',
      'rc-update add qemu-guest-agent default',
      'rc-service qemu-guest-agent start',
    ]);
  });

  it('an agent already installed (qemu-ga on PATH) is started without touching the package manager', async function () {
    expect(await runWith(['qemu-ga', 'apt-get', 'systemctl'])).to.deep.equal([
      'systemctl enable qemu-guest-agent',
      'systemctl start qemu-guest-agent',
    ]);
  });
});
