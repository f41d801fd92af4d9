// SPEC 20: every reader other people wrote sees exactly the seed's files,
// by their exact names, with the bytes we put in: blkid (how cloud-init
// finds the seed), xorriso, isoinfo, 7-Zip, libarchive and pycdlib, with
// and without Joliet.
import { expect } from 'chai';
import { join } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { buildSeed, type SeedInput } from '../../src/nocloud/seed.js';
import { GUEST_AGENT_VENDOR_DATA } from '../../src/nocloud/vendor-data.js';
import { blkidProbe, bsdtarView, isoinfoView, pycdlibView, sevenZipView, xorrisoView, type FileView } from './readers.js';
import { withTempDir, writeSource } from './tools.js';

const USER_DATA = '#cloud-config\n# café: user-data is UTF-8\nhostname: reader-test\n';
const NETWORK_CONFIG = 'version: 2\nethernets:\n  eth0:\n    dhcp4: true\n';

interface Variant {
  title: string;
  input: SeedInput;
  /** What every reader must list, written out here rather than taken from the code. */
  expected: Record<string, string>;
}

const variants: Variant[] = [
  {
    title: 'defaults (no Joliet)',
    input: { name: 'vm-default', installGuestAgent: true, joliet: false },
    expected: {
      'meta-data': 'instance-id: "vm-default"\nlocal-hostname: "vm-default"\n',
      'user-data': '#cloud-config\n{}\n',
      'vendor-data': GUEST_AGENT_VENDOR_DATA,
    },
  },
  {
    title: 'user-data and network-config (no Joliet)',
    input: { name: 'web-01', userData: USER_DATA, networkConfig: NETWORK_CONFIG, installGuestAgent: true, joliet: false },
    expected: {
      'meta-data': 'instance-id: "web-01"\nlocal-hostname: "web-01"\n',
      'user-data': USER_DATA,
      'vendor-data': GUEST_AGENT_VENDOR_DATA,
      'network-config': NETWORK_CONFIG,
    },
  },
  {
    title: 'defaults with Joliet',
    input: { name: 'vm-joliet', installGuestAgent: true, joliet: true },
    expected: {
      'meta-data': 'instance-id: "vm-joliet"\nlocal-hostname: "vm-joliet"\n',
      'user-data': '#cloud-config\n{}\n',
      'vendor-data': GUEST_AGENT_VENDOR_DATA,
    },
  },
  {
    title: 'user-data and network-config with Joliet',
    input: { name: 'web-02', userData: USER_DATA, networkConfig: NETWORK_CONFIG, installGuestAgent: true, joliet: true },
    expected: {
      'meta-data': 'instance-id: "web-02"\nlocal-hostname: "web-02"\n',
      'user-data': USER_DATA,
      'vendor-data': GUEST_AGENT_VENDOR_DATA,
      'network-config': NETWORK_CONFIG,
    },
  },
  {
    title: 'no guest agent (no vendor-data)',
    input: { name: 'bare', installGuestAgent: false, joliet: false },
    expected: {
      'meta-data': 'instance-id: "bare"\nlocal-hostname: "bare"\n',
      'user-data': '#cloud-config\n{}\n',
    },
  },
];

function expectView(view: FileView, expected: Record<string, string>): void {
  expect([...view.keys()].sort()).to.deep.equal(Object.keys(expected).sort());
  for (const [name, text] of Object.entries(expected)) {
    expect(view.get(name)?.toString('utf8'), name).to.equal(text);
  }
}

for (const variant of variants) {
  describe(`seed ISO read back by other tools: ${variant.title} (SPEC 20)`, function () {
    let iso = '';
    let work = '';
    let cleanup: () => Promise<void> = () => Promise.resolve();

    before(async function () {
      ({ dir: work, cleanup } = await withTempDir('seed-readers-'));
      iso = join(work, 'seed.iso');
      await writeSource(buildSeed(variant.input), iso);
    });
    after(() => cleanup());

    it('blkid -p finds TYPE=iso9660 with LABEL=cidata, as cloud-init looks for it', function () {
      const probe = blkidProbe(iso);
      expect(probe.TYPE).to.equal('iso9660');
      expect(probe.LABEL).to.equal('cidata');
    });

    it('xorriso lists and extracts the Rock Ridge names', async function () {
      const dir = join(work, 'x1');
      await mkdir(dir);
      expectView(await xorrisoView(iso, dir), variant.expected);
    });

    it('isoinfo -R lists and extracts the Rock Ridge names', function () {
      expectView(isoinfoView(iso, '-R'), variant.expected);
    });

    it('7z lists and extracts the names', async function () {
      const dir = join(work, 'x2');
      await mkdir(dir);
      expectView(await sevenZipView(iso, dir), variant.expected);
    });

    it('bsdtar (libarchive) lists and extracts the names', function () {
      expectView(bsdtarView(iso), variant.expected);
    });

    it('pycdlib lists the Rock Ridge names and extracts the bytes', function () {
      expectView(pycdlibView(iso, 'rr'), variant.expected);
    });

    if (variant.input.joliet) {
      it('isoinfo -J lists and extracts the Joliet names', function () {
        expectView(isoinfoView(iso, '-J'), variant.expected);
      });

      it('pycdlib lists the Joliet names and extracts the bytes', function () {
        expectView(pycdlibView(iso, 'joliet'), variant.expected);
      });
    }
  });
}
