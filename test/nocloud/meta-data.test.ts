// SPEC 20, 27: meta-data as written. Without keys it is the two lines it
// always was (a seed's bytes do not change for jobs without sshKeys); with
// keys, a public-keys list whose items are escaped to printable ASCII.
import { expect } from 'chai';
import { metaData } from '../../src/nocloud/meta-data.js';

describe('seed meta-data (SPEC 20, 27)', () => {
  it('is instance-id and local-hostname alone without keys, or with an empty list', () => {
    expect(metaData('web-1')).to.equal('instance-id: "web-1"\nlocal-hostname: "web-1"\n');
    expect(metaData('web-1', [])).to.equal('instance-id: "web-1"\nlocal-hostname: "web-1"\n');
  });

  it('lists the keys in order under public-keys, every non-ASCII character escaped', () => {
    expect(metaData('web-1', ['ssh-ed25519 AAAA a "b"', 'ssh-ed25519 BBBB José 🔑'])).to.equal(
      'instance-id: "web-1"\nlocal-hostname: "web-1"\npublic-keys:\n  - "ssh-ed25519 AAAA a \\"b\\""\n  - "ssh-ed25519 BBBB Jos\\u00e9 \\U0001f511"\n',
    );
  });
});
