// SPEC 29 (issue 31): readiness `phone-home` in the seed's vendor-data:
// cloud-init's phone_home after the agent's install, whose text stays as
// it was byte for byte; alone when the agent is not installed; accepted
// by `cloud-init schema`; the job's user-data untouched.
import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { seedFiles } from '../../src/nocloud/seed.js';
import { GUEST_AGENT_VENDOR_DATA, vendorData } from '../../src/nocloud/vendor-data.js';
import { mustRun, runTool, withTempDir } from './tools.js';

const URL = 'https://provisioner.example/base/v1/ready/Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF';

const PHONE_HOME = `# pve-provisioner: tell the service this guest has booted (readiness phone-home).
phone_home:
  url: "${URL}"
  post:
    - instance_id
  tries: 10
`;

function asPyYaml(text: string): Record<string, unknown> {
  const script = 'import sys, yaml, json; print(json.dumps(yaml.safe_load(sys.stdin.read())))';
  return JSON.parse(mustRun('/usr/bin/python3', ['-c', script], text).toString('utf8')) as Record<string, unknown>;
}

function fileText(files: ReturnType<typeof seedFiles>, name: string): string | undefined {
  const file = files.find((f) => f.name === name);
  return file === undefined ? undefined : Buffer.from(file.data).toString('utf8');
}

describe('vendor-data with readiness phone-home (SPEC 29, issue 31)', () => {
  it('without phone-home is the agent install exactly as before, or no vendor-data at all', () => {
    expect(vendorData({ installGuestAgent: true })).to.equal(GUEST_AGENT_VENDOR_DATA);
    expect(vendorData({ installGuestAgent: false })).to.equal(undefined);
  });

  it('with the agent: its text unchanged, then phone_home', () => {
    expect(vendorData({ installGuestAgent: true, phoneHomeUrl: URL })).to.equal(GUEST_AGENT_VENDOR_DATA + PHONE_HOME);
  });

  it('without the agent: a cloud-config of phone_home alone', () => {
    expect(vendorData({ installGuestAgent: false, phoneHomeUrl: URL })).to.equal(`#cloud-config\n${PHONE_HOME}`);
  });

  it('reads in PyYAML as one cloud-config with runcmd and phone_home {url, post: [instance_id], tries: 10}', () => {
    const both = asPyYaml(vendorData({ installGuestAgent: true, phoneHomeUrl: URL }) ?? '');
    expect(Object.keys(both)).to.deep.equal(['runcmd', 'phone_home']);
    expect(both.phone_home).to.deep.equal({ url: URL, post: ['instance_id'], tries: 10 });
  });

  it('the seed carries it in vendor-data and leaves the job\'s user-data as given', () => {
    const userData = '#cloud-config\nphone_home: {url: "http://theirs.example/"}\n';
    const files = seedFiles({ name: 'ph-1', userData, installGuestAgent: false, phoneHomeUrl: URL, joliet: false });
    expect(fileText(files, 'user-data')).to.equal(userData);
    expect(fileText(files, 'vendor-data')).to.equal(`#cloud-config\n${PHONE_HOME}`);
    expect(fileText(seedFiles({ name: 'ph-1', installGuestAgent: false, joliet: false }), 'vendor-data')).to.equal(undefined);
  });

  describe('checked by cloud-init schema', function () {
    let dir = '';
    let cleanup: () => Promise<void> = () => Promise.resolve();
    before(async function () {
      ({ dir, cleanup } = await withTempDir('vendor-phone-home-'));
    });
    after(() => cleanup());

    for (const installGuestAgent of [true, false]) {
      it(`accepts the vendor-data ${installGuestAgent ? 'with' : 'without'} the agent's install`, async function () {
        const path = join(dir, `vendor-${installGuestAgent}`);
        await writeFile(path, vendorData({ installGuestAgent, phoneHomeUrl: URL }) ?? '');
        const result = runTool('cloud-init', ['schema', '--config-file', path]);
        expect(result.status, `${result.stdout.toString('utf8')}${result.stderr}`).to.equal(0);
      });
    }

    it('refuses a phone_home with a wrong shape, so the checks above can fail', async function () {
      const path = join(dir, 'broken');
      await writeFile(path, '#cloud-config\nphone_home:\n  url: "http://x/"\n  tries: "ten"\n');
      expect(runTool('cloud-init', ['schema', '--config-file', path]).status).to.equal(1);
    });
  });
});
