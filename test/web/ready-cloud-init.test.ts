// SPEC 29 (issue 31): Debian's cloud-init itself phones home, with the
// phone_home config of the seed's vendor-data as PyYAML reads it, to the
// real API server listening on loopback: its module's post (a form of the
// instance id) is accepted and leaves the VM's ready signal.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { vendorData } from '../../src/nocloud/vendor-data.js';
import { redisReadySignals } from '../../src/queue/ready-signals.js';
import { buildTestWeb, listenOnLoopback, type TestWeb } from './helpers.js';

/** cloud-init's cc_phone_home.handle on a stand-in cloud (its instance id, hostname and paths), fed the vendor-data on stdin. */
const PHONE_HOME_SCRIPT = `
import sys, tempfile, logging, yaml
from cloudinit.config import cc_phone_home
from cloudinit.helpers import Paths
class Host:
    hostname = 'ph-guest'
class Cloud:
    paths = Paths({'cloud_dir': tempfile.mkdtemp()})
    def get_instance_id(self): return 'ph-guest'
    def get_hostname(self, fqdn=False): return Host()
log = logging.getLogger('phone-home-test')
log.addHandler(logging.StreamHandler(sys.stderr))
cc_phone_home.handle('phone_home', yaml.safe_load(sys.stdin.read()), Cloud(), log, [])
`;

function runCloudInit(cloudConfig: string): Promise<{ stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile('/usr/bin/python3', ['-c', PHONE_HOME_SCRIPT], { timeout: 60_000 }, (err, _stdout, stderr) => {
      if (err !== null && (err as NodeJS.ErrnoException).code === 'ENOENT') reject(new Error('python3 is not installed: install the Debian packages python3 and cloud-init'));
      else if (stderr.includes("No module named 'cloudinit'")) reject(new Error('cloud-init is not installed: install the Debian package cloud-init'));
      else resolve({ stderr });
    });
    child.stdin?.end(cloudConfig);
  });
}

describe("cloud-init's phone_home against POST /v1/ready/:token (SPEC 29, issue 31)", function () {
  let web: TestWeb;
  let base = '';
  before(async () => {
    web = await buildTestWeb();
    base = await listenOnLoopback(web.app);
  });
  after(() => web.close());

  it("its post of the seed's phone_home config is accepted: the token is used up and the VM's signal is there", async () => {
    const signals = redisReadySignals(web.redis, web.prefix);
    const token = randomBytes(32).toString('base64url');
    await signals.issue(token, { name: 'ph-guest', uid: 'c0ffee00-0000-4000-8000-0000000000c1', generation: 1 }, 600);
    const { stderr } = await runCloudInit(vendorData({ installGuestAgent: false, phoneHomeUrl: `${base}/v1/ready/${token}` }) ?? '');
    expect(stderr).to.not.contain('Failed to post phone home data');
    expect(await signals.arrived('ph-guest', 'c0ffee00-0000-4000-8000-0000000000c1')).to.equal(true);
    expect(await signals.accept(token)).to.equal(undefined);
  });
});
