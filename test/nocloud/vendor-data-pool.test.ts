// SPEC 30: a pool member's vendor-data makes the image user's ~/.ssh
// (mode 700, the user's) as its first runcmd entry, before the agent's,
// for the claim's agent/file-write; parsed by the PyYAML cloud-init uses
// and run by sh against stand-in tools. Without a member the vendor-data
// is the agent's alone, byte for byte as before.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GUEST_AGENT_VENDOR_DATA, vendorData } from '../../src/nocloud/vendor-data.js';
import { mustRun, withTempDir } from './tools.js';

function parsed(cloudConfig: string): { runcmd?: string[]; phone_home?: unknown } {
  const script = 'import sys, yaml, json; print(json.dumps(yaml.safe_load(sys.stdin.read())))';
  return JSON.parse(mustRun('/usr/bin/python3', ['-c', script], cloudConfig).toString('utf8')) as { runcmd?: string[]; phone_home?: unknown };
}

/** Runs one runcmd entry with stand-ins for mkdir, chown and chmod; returns what they were asked to do. */
async function runEntry(entry: string): Promise<string[]> {
  const { dir, cleanup } = await withTempDir('seed-vendor-pool-');
  try {
    const log = join(dir, 'calls.log');
    await writeFile(log, '');
    for (const command of ['mkdir', 'chown', 'chmod']) {
      const path = join(dir, command);
      await writeFile(path, `#!/bin/sh\necho "\${0##*/} $*" >> '${log}'\n`);
      await chmod(path, 0o755);
    }
    const run = spawnSync('/bin/sh', ['-c', entry], { env: { PATH: dir } });
    expect(run.status, run.stderr.toString()).to.equal(0);
    return (await readFile(log, 'utf8')).split('\n').filter((l) => l !== '');
  } finally {
    await cleanup();
  }
}

describe("a pool member's vendor-data (SPEC 30)", () => {
  it("makes the user's ~/.ssh first, mode 700 and owned by the user and its group, then installs the agent", async () => {
    const runcmd = parsed(vendorData({ installGuestAgent: true, poolUser: 'debian' }) ?? '').runcmd ?? [];
    expect(runcmd).to.have.length(2);
    expect(await runEntry(runcmd[0] ?? '')).to.deep.equal(['mkdir -p /home/debian/.ssh', 'chown debian: /home/debian/.ssh', 'chmod 700 /home/debian/.ssh']);
    expect(runcmd[1]).to.equal(parsed(GUEST_AGENT_VENDOR_DATA).runcmd?.[0]);
  });

  it("root's is /root/.ssh; without the agent's install the entry stands alone; phone_home stays", async () => {
    const doc = parsed(vendorData({ installGuestAgent: false, poolUser: 'root', phoneHomeUrl: 'https://svc.example/v1/ready/t' }) ?? '');
    expect(doc.runcmd).to.have.length(1);
    expect(await runEntry(doc.runcmd?.[0] ?? '')).to.deep.equal(['mkdir -p /root/.ssh', 'chown root: /root/.ssh', 'chmod 700 /root/.ssh']);
    expect(doc.phone_home).to.deep.include({ url: 'https://svc.example/v1/ready/t' });
  });

  it("leaves a create that is not a member's as it was", () => {
    expect(vendorData({ installGuestAgent: true })).to.equal(GUEST_AGENT_VENDOR_DATA);
    expect(vendorData({ installGuestAgent: false })).to.equal(undefined);
  });
});
