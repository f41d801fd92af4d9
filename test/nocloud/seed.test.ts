// SPEC 20 and SPEC 11: what the provider relies on from buildSeed: the
// name of the file, the classes of its errors (the seeds' S5.1 finding),
// an exact size, and the same bytes on every open and every build.
import { expect } from 'chai';
import type { Readable } from 'node:stream';
import { PermanentError, TransientError } from '../../src/errors.js';
import { buildSeed, seedFileName, seedFiles, type SeedInput } from '../../src/nocloud/seed.js';

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const INPUT: SeedInput = { name: 'vm-7', userData: '#cloud-config\n{}\n', installGuestAgent: true, joliet: false };

describe('seedFileName (SPEC 11)', function () {
  it('is <name>-seed.iso', function () {
    expect(seedFileName('web-01')).to.equal('web-01-seed.iso');
  });

  it('refuses an empty name as Permanent', function () {
    expect(() => seedFileName('')).to.throw(PermanentError);
  });
});

describe('buildSeed (SPEC 20)', function () {
  it('refuses an empty name as Permanent, not Transient', function () {
    expect(() => buildSeed({ ...INPUT, name: '' }))
      .to.throw(PermanentError)
      .and.not.be.instanceOf(TransientError);
  });

  it('turns any other failure while building into Transient (S5.1: staging must not latch the VM)', function () {
    const broken = { ...INPUT, networkConfig: 42 as unknown as string };
    expect(() => buildSeed(broken))
      .to.throw(TransientError, /building the seed ISO for "vm-7" failed/)
      .and.not.be.instanceOf(PermanentError);
  });

  it('streams exactly size bytes, a whole number of 2048-byte sectors', async function () {
    for (const joliet of [false, true]) {
      const seed = buildSeed({ ...INPUT, joliet });
      const bytes = await bytesOf(seed.open());
      expect(bytes.length).to.equal(seed.size);
      expect(seed.size % 2048).to.equal(0);
    }
  });

  it('gives the same bytes on every open, also when two streams run at once (a retried upload)', async function () {
    const seed = buildSeed(INPUT);
    const [first, second] = await Promise.all([bytesOf(seed.open()), bytesOf(seed.open())]);
    const third = await bytesOf(seed.open());
    expect(second.equals(first)).to.be.true;
    expect(third.equals(first)).to.be.true;
  });

  it('gives the same bytes for the same input, built twice', async function () {
    const a = await bytesOf(buildSeed(INPUT).open());
    const b = await bytesOf(buildSeed({ ...INPUT }).open());
    expect(a.equals(b)).to.be.true;
  });

  it('gives different bytes for another name', async function () {
    const a = await bytesOf(buildSeed(INPUT).open());
    const b = await bytesOf(buildSeed({ ...INPUT, name: 'vm-8' }).open());
    expect(a.equals(b)).to.be.false;
  });

  it('streams the file contents as chunks of their own rather than one image buffer', async function () {
    const chunks: Buffer[] = [];
    for await (const chunk of buildSeed(INPUT).open()) chunks.push(chunk as Buffer);
    expect(chunks.length).to.be.greaterThan(3);
  });
});

describe('seedFiles (SPEC 20)', function () {
  const names = (input: SeedInput): string[] => seedFiles(input).map((f) => f.name);

  it('has meta-data, user-data and vendor-data by default', function () {
    expect(names({ name: 'a', installGuestAgent: true, joliet: false })).to.deep.equal(['meta-data', 'user-data', 'vendor-data']);
  });

  it('leaves vendor-data out when the guest agent is not to be installed', function () {
    expect(names({ name: 'a', installGuestAgent: false, joliet: false })).to.deep.equal(['meta-data', 'user-data']);
  });

  it('adds network-config when given, byte for byte', function () {
    const files = seedFiles({ name: 'a', networkConfig: 'version: 1\n', installGuestAgent: true, joliet: false });
    expect(files.find((f) => f.name === 'network-config')?.data.toString()).to.equal('version: 1\n');
  });

  it('sets instance-id and local-hostname to the name, quoted so YAML keeps it a string', function () {
    const meta = seedFiles({ name: 'yes', installGuestAgent: false, joliet: false })[0];
    expect(meta?.data.toString()).to.equal('instance-id: "yes"\nlocal-hostname: "yes"\n');
  });

  it('installs qemu-guest-agent with whichever of apt, dnf, yum, zypper or apk the guest has, and starts it', function () {
    const vendor = seedFiles({ name: 'a', installGuestAgent: true, joliet: false })[2]?.data.toString() ?? '';
    for (const tool of ['apt-get', 'dnf', 'yum', 'zypper', 'apk']) expect(vendor).to.include(`command -v ${tool} `);
    expect(vendor).to.include('systemctl start qemu-guest-agent');
    expect(vendor).to.include('rc-service qemu-guest-agent start');
  });
});
