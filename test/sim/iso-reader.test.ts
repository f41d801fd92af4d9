// SPEC 29: the simulator's own ISO 9660 reader gives the names a Linux
// guest sees when it mounts the seed: our writer's images (Rock Ridge,
// with and without Joliet) and images made by xorriso and genisoimage.
import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildSeed } from '../../src/nocloud/seed.js';
import type { UploadSource } from '../../src/proxmox/api.js';
import { IsoReadError, readIso } from '../../src/sim/iso-reader/index.js';
import { mustRun, withTempDir } from '../nocloud/tools.js';

async function bytesOf(source: UploadSource): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of source.open()) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

const NETWORK_CONFIG = 'version: 2\nethernets:\n  net0:\n    match:\n      macaddress: "bc:24:11:00:00:01"\n    addresses: ["127.77.0.5/24"]\n';
const USER_DATA = '#cloud-config\nphone_home:\n  url: "http://127.0.0.1:9/v1/ready/t"\n';

describe('simulator ISO 9660 reader (SPEC 29)', function () {
  for (const joliet of [false, true]) {
    it(`reads our writer's seed ${joliet ? 'with' : 'without'} Joliet: volume cidata and every file by its whole name, byte for byte`, async function () {
      const image = await bytesOf(buildSeed({ name: 'vm-a', userData: USER_DATA, networkConfig: NETWORK_CONFIG, installGuestAgent: true, joliet }));
      const { volumeId, files } = readIso(image);
      expect(volumeId).to.equal('cidata');
      expect([...files.keys()].sort()).to.deep.equal(['meta-data', 'network-config', 'user-data', 'vendor-data']);
      expect(files.get('network-config')?.toString()).to.equal(NETWORK_CONFIG);
      expect(files.get('user-data')?.toString()).to.equal(USER_DATA);
      expect(files.get('meta-data')?.toString()).to.equal('instance-id: "vm-a"\nlocal-hostname: "vm-a"\n');
    });
  }

  describe('images made by other tools', function () {
    let dir = '';
    let cleanup: () => Promise<void> = () => Promise.resolve();
    // Longer than Joliet's 64 characters: only Rock Ridge keeps it whole.
    const longName = `network-config-${'x'.repeat(70)}.yaml`;

    before(async function () {
      ({ dir, cleanup } = await withTempDir('sim-iso-reader-'));
      await writeFile(join(dir, 'meta-data'), 'instance-id: i-1\n');
      await writeFile(join(dir, 'network-config'), NETWORK_CONFIG);
      await writeFile(join(dir, longName), 'long\n');
    });
    after(() => cleanup());

    async function made(tool: string, args: string[]): Promise<Buffer> {
      const out = join(dir, `${args.join('')}.iso`.replace(/[^a-z.]/gi, ''));
      const files = ['meta-data', 'network-config', longName].map((f) => join(dir, f));
      mustRun(tool, [...args, '-quiet', '-V', 'cidata', '-o', out, ...files]);
      return readFile(out);
    }

    it('xorriso -as mkisofs -J -r: Rock Ridge names, preferred to the Joliet tree as Linux does', async function () {
      const { volumeId, files } = readIso(await made('xorriso', ['-as', 'mkisofs', '-J', '-r']));
      expect(volumeId).to.equal('cidata');
      expect([...files.keys()].sort()).to.deep.equal(['meta-data', 'network-config', longName].sort());
      expect(files.get('network-config')?.toString()).to.equal(NETWORK_CONFIG);
      expect(files.get(longName)?.toString()).to.equal('long\n');
    });

    it('genisoimage -J without Rock Ridge: the Joliet names', async function () {
      const { files } = readIso(await made('genisoimage', ['-J']));
      expect(files.get('meta-data')?.toString()).to.equal('instance-id: i-1\n');
      expect(files.get('network-config')?.toString()).to.equal(NETWORK_CONFIG);
      // Joliet keeps 64 characters of the long name.
      expect([...files.keys()].some((n) => n.length === 64 && longName.startsWith(n))).to.equal(true);
    });

    it('genisoimage with neither: the 8.3 names in lower case, version dropped, as a guest would see them', async function () {
      const { files } = readIso(await made('genisoimage', []));
      expect(files.get('meta_dat')?.toString()).to.equal('instance-id: i-1\n');
      expect(files.has('meta-data')).to.equal(false);
    });
  });

  it('refuses what is not an ISO 9660 image, saying why', function () {
    expect(() => readIso(Buffer.alloc(40 * 2048))).to.throw(IsoReadError, /not an ISO 9660 volume descriptor/);
    expect(() => readIso(Buffer.from('#cloud-config\n'))).to.throw(IsoReadError, /beyond the end of the image/);
  });

  it('refuses a truncated image, saying which part lies beyond its end', async function () {
    const image = await bytesOf(buildSeed({ name: 'vm-a', installGuestAgent: false, joliet: false }));
    expect(() => readIso(image.subarray(0, image.length - 2048))).to.throw(IsoReadError, /extent of .* beyond the end/);
  });
});
