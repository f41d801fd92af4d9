// SPEC 30, SPEC 7 (issue 32): `pools`, the warm pools, and
// proxmox.images[].user. An entry's shape defaults as a create's does;
// maxIdle defaults to minIdle and maxAgeMinutes to 1440; every bad field
// stops the load naming `pools[i].<field>`; a pool's image needs a user,
// its node must serve it, and two pools of one shape are refused.
import { expect } from 'chai';
import { loadConfig } from '../../src/config/index.js';
import { loadError } from '../support/config-error.js';

const IMAGES = [
  { name: 'ubuntu', templates: { pve1: 9001, pve2: 9002 }, user: 'ubuntu' },
  { name: 'bare', templates: { pve1: 9011 } },
];

function env(pools: unknown[], images: unknown[] = IMAGES): Record<string, string> {
  return { POOLS: JSON.stringify(pools), PROXMOX_IMAGES: JSON.stringify(images) };
}

describe('config pools (SPEC 30, SPEC 7)', () => {
  it('none by default', () => {
    expect(loadConfig({ env: {} }).pools).to.deep.equal([]);
  });

  it("fills the shape from proxmox.defaultImage and proxmox.defaults, maxIdle from minIdle, maxAgeMinutes 1440; keeps what is given", () => {
    const full = { name: 'big', image: 'ubuntu', cores: 4, memoryMiB: 8192, diskGiB: 40, bridge: 'vmbr1', vlanTag: 20, node: 'pve2', minIdle: 2, maxIdle: 5, maxAgeMinutes: 0 };
    const config = loadConfig({ env: env([{ name: 'web', minIdle: 3 }, full]) });
    expect(config.pools).to.deep.equal([{ name: 'web', image: 'ubuntu', cores: 2, memoryMiB: 2048, diskGiB: 10, minIdle: 3, maxIdle: 3, maxAgeMinutes: 1440 }, full]);
    expect(loadConfig({ env: { PROXMOX_IMAGES: JSON.stringify(IMAGES) }, overrides: { pools: [{ name: 'web', minIdle: 1 }] } }).pools[0]).to.include({ image: 'ubuntu', maxIdle: 1 });
  });

  it('keeps proxmox.images[].user', () => {
    expect(loadConfig({ env: env([]) }).proxmox.images[0]?.user).to.equal('ubuntu');
  });

  const refused: [string, Record<string, string>, RegExp][] = [
    ['an image user that is no user name', env([], [{ ...IMAGES[0], user: 'Ubuntu User' }]), /proxmox\.images: entry 0 \(ubuntu\): user must be a user name/],
    ['a list that is no list', { POOLS: 'web', PROXMOX_IMAGES: JSON.stringify(IMAGES) }, /pools must be a JSON list of \{name, image\?/],
    ['an entry that is no object', env(['web']), /pools\[0\] must be an object \{name/],
    ['an unknown key', env([{ name: 'web', minIdle: 1, size: 3 }]), /pools\[0\]\.size is not a pool key; allowed: name, image/],
    ['a name with capitals', env([{ name: 'Web', minIdle: 1 }]), /pools\[0\]\.name must be 1 to 20 of a-z, 0-9 and "-", starting with a letter, got "Web"/],
    ['a name of 21', env([{ name: 'a'.repeat(21), minIdle: 1 }]), /pools\[0\]\.name must be 1 to 20/],
    ['a name starting with a digit', env([{ name: '1web', minIdle: 1 }]), /pools\[0\]\.name must be/],
    ['no minIdle', env([{ name: 'web' }]), /pools\[0\]\.minIdle is required/],
    ['a minIdle of 101', env([{ name: 'web', minIdle: 101 }]), /pools\[0\]\.minIdle must be an integer from 0 to 100, got 101/],
    ['a fractional minIdle', env([{ name: 'web', minIdle: 1.5 }]), /pools\[0\]\.minIdle must be an integer from 0 to 100/],
    ['a maxIdle below minIdle', env([{ name: 'web', minIdle: 3, maxIdle: 2 }]), /pools\[0\]\.maxIdle must be an integer from minIdle \(3\) to 100, got 2/],
    ['a negative maxAgeMinutes', env([{ name: 'web', minIdle: 1, maxAgeMinutes: -1 }]), /pools\[0\]\.maxAgeMinutes must be an integer from 0/],
    ['cores of 0', env([{ name: 'web', minIdle: 1, cores: 0 }]), /pools\[0\]\.cores must be an integer from 1/],
    ['a bad bridge', env([{ name: 'web', minIdle: 1, bridge: '1br' }]), /pools\[0\]\.bridge must be a bridge name/],
    ['a VLAN tag of 4095', env([{ name: 'web', minIdle: 1, vlanTag: 4095 }]), /pools\[0\]\.vlanTag must be an integer from 1 to 4094/],
    ['a name twice', env([{ name: 'web', minIdle: 1 }, { name: 'web', minIdle: 1, cores: 4 }]), /pools\[1\]\.name "web" is also pools\[0\]'s/],
    ['an image that is not configured', env([{ name: 'web', minIdle: 1, image: 'debian' }]), /pools\[0\]\.image "debian" is not an image of proxmox\.images/],
    ['an image without a user', env([{ name: 'web', minIdle: 1, image: 'bare' }]), /pools\[0\]\.image "bare" has no user: set proxmox\.images\[\]\.user/],
    ['the implicit image', { POOLS: JSON.stringify([{ name: 'web', minIdle: 1 }]) }, /pools\[0\]\.image is the implicit image "default"/],
    ['a node that is not configured', env([{ name: 'web', minIdle: 1, node: 'pve9' }]), /pools\[0\]\.node "pve9" is not in proxmox\.nodes \(pve1, pve2\)/],
    ['a node that does not serve the image', env([{ name: 'web', minIdle: 1, node: 'pve2', image: 'bare' }], [IMAGES[0], { ...IMAGES[1], user: 'root' }]), /pools\[0\]\.node "pve2" does not serve image "bare" \(served by: pve1\)/],
    ['cores above the limit', env([{ name: 'web', minIdle: 1, cores: 64 }]), /pools\[0\]\.cores \(64\) is above proxmox\.limits\.maxCores \(32\)/],
    ['memory above the limit', env([{ name: 'web', minIdle: 1, memoryMiB: 262144 }]), /pools\[0\]\.memoryMiB \(262144\) is above proxmox\.limits\.maxMemoryMiB/],
    ['two pools of one shape (a default and its value)', env([{ name: 'web', minIdle: 1 }, { name: 'web2', minIdle: 2, cores: 2 }]), /pools\[1\] \(web2\) has the same shape as pools\[0\] \(web\)/],
  ];
  for (const [what, given, message] of refused) {
    it(`refuses ${what}, naming the field`, () => {
      expect(loadError(given)).to.match(message);
    });
  }

  it('takes another shape on another node or network as another pool', () => {
    const pools = loadConfig({ env: env([{ name: 'web', minIdle: 1 }, { name: 'web1', minIdle: 1, node: 'pve1' }, { name: 'web-v', minIdle: 1, vlanTag: 7 }]) }).pools;
    expect(pools.map((p) => p.name)).to.deep.equal(['web', 'web1', 'web-v']);
  });
});
