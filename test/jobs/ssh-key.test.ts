// SPEC 27: an `sshKeys` item is one OpenSSH public key line. The keys in
// fixtures/ssh/ were made once with `ssh-keygen` (private halves thrown
// away); the sk- keys need a FIDO token, so they are built here in the
// wire format of OpenSSH's PROTOCOL.u2f.
import { expect } from 'chai';
import { MIN_RSA_BITS, SSH_KEY_TYPES, sshKeyProblem } from '../../src/job-table/ssh-key.js';
import { fixtureKey } from '../support/ssh-keys.js';

function wire(...parts: (string | Buffer)[]): string {
  return Buffer.concat(
    parts.flatMap((part) => {
      const bytes = typeof part === 'string' ? Buffer.from(part, 'latin1') : part;
      const length = Buffer.alloc(4);
      length.writeUInt32BE(bytes.length);
      return [length, bytes];
    }),
  ).toString('base64');
}

const blobOf = (line: string): Buffer => Buffer.from(line.split(' ')[1] ?? '', 'base64');
const ed25519 = fixtureKey('ed25519.pub');
const NOT_A_KEY = 'is not an OpenSSH public key';

describe('an OpenSSH public key line (SPEC 27)', () => {
  for (const file of ['ed25519.pub', 'rsa-2048.pub', 'ecdsa-256.pub', 'ecdsa-384.pub', 'ecdsa-521.pub']) {
    it(`takes the ssh-keygen key ${file}, with or without its comment`, () => {
      const line = fixtureKey(file);
      expect(sshKeyProblem(line)).to.equal(undefined);
      expect(sshKeyProblem(line.split(' ').slice(0, 2).join(' '))).to.equal(undefined);
    });
  }

  it('takes the FIDO types, their application included', () => {
    const point = Buffer.alloc(65, 7);
    point[0] = 4;
    expect(sshKeyProblem(`sk-ssh-ed25519@openssh.com ${wire('sk-ssh-ed25519@openssh.com', Buffer.alloc(32, 1), 'ssh:')} yubi`)).to.equal(undefined);
    expect(sshKeyProblem(`sk-ecdsa-sha2-nistp256@openssh.com ${wire('sk-ecdsa-sha2-nistp256@openssh.com', 'nistp256', point, 'ssh:')}`)).to.equal(undefined);
    // Without the application the sk- blob is cut short.
    expect(sshKeyProblem(`sk-ssh-ed25519@openssh.com ${wire('sk-ssh-ed25519@openssh.com', Buffer.alloc(32, 1))}`)).to.equal(`${NOT_A_KEY}: its key data is truncated`);
  });

  it('keeps a comment with spaces and non-ASCII letters', () => {
    expect(sshKeyProblem(`${ed25519.split(' ').slice(0, 2).join(' ')} José's laptop (work)`)).to.equal(undefined);
  });

  it('refuses another type, naming it and the allowed ones', () => {
    expect(sshKeyProblem(fixtureKey('dsa.pub'))).to.equal(`${NOT_A_KEY}: its type is ssh-dss, allowed: ${SSH_KEY_TYPES.join(', ')}`);
  });

  it('refuses an RSA key under 2048 bits, saying its size', () => {
    expect(sshKeyProblem(fixtureKey('rsa-1024.pub'))).to.equal(`is an RSA key of 1024 bits; at least ${MIN_RSA_BITS} are needed`);
    expect(sshKeyProblem(`ssh-rsa ${wire('ssh-rsa', Buffer.from([1, 0, 1]), Buffer.concat([Buffer.from([0]), Buffer.alloc(256, 0xff)]))}`), 'exactly 2048 bits').to.equal(undefined);
    expect(sshKeyProblem(`ssh-rsa ${wire('ssh-rsa', Buffer.from([1, 0, 1]), Buffer.concat([Buffer.from([0x7f]), Buffer.alloc(255, 0xff)]))}`)).to.equal(
      `is an RSA key of 2047 bits; at least ${MIN_RSA_BITS} are needed`,
    );
  });

  it('refuses a truncated blob, and one with bytes after the key', () => {
    const blob = blobOf(ed25519);
    expect(sshKeyProblem(`ssh-ed25519 ${blob.subarray(0, blob.length - 3).toString('base64')}`)).to.equal(`${NOT_A_KEY}: its key data is truncated`);
    expect(sshKeyProblem(`ssh-ed25519 ${blob.subarray(0, 2).toString('base64')}`)).to.equal(`${NOT_A_KEY}: its key data is truncated`);
    expect(sshKeyProblem(`ssh-ed25519 ${Buffer.concat([blob, Buffer.alloc(3)]).toString('base64')}`)).to.equal(`${NOT_A_KEY}: its key data has 3 bytes after the key`);
  });

  it('refuses a type that does not match the one inside the key data', () => {
    const [, data = ''] = ed25519.split(' ');
    expect(sshKeyProblem(`ssh-rsa ${data}`)).to.equal(`${NOT_A_KEY}: it says ssh-rsa but its key data is ssh-ed25519`);
    const [, ecdsa = ''] = fixtureKey('ecdsa-256.pub').split(' ');
    expect(sshKeyProblem(`ecdsa-sha2-nistp384 ${ecdsa}`)).to.equal(`${NOT_A_KEY}: it says ecdsa-sha2-nistp384 but its key data is ecdsa-sha2-nistp256`);
    expect(sshKeyProblem(`ecdsa-sha2-nistp256 ${wire('ecdsa-sha2-nistp256', 'nistp384', Buffer.alloc(65, 4))}`)).to.equal(`${NOT_A_KEY}: its curve is not nistp256`);
  });

  it('refuses text that is not base64, or not one line', () => {
    expect(sshKeyProblem('ssh-ed25519 AAAA*AAA')).to.equal(`${NOT_A_KEY}: its key data is not base64`);
    expect(sshKeyProblem('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIP+ULvV86cq3P34bJDxwvkBXKTN3w37CY1jn2d4sdGv')).to.equal(`${NOT_A_KEY}: its key data is not base64`);
    expect(sshKeyProblem(`${ed25519}\n${ed25519}`)).to.match(/must be one line/);
    expect(sshKeyProblem(`${ed25519}\r`)).to.match(/must be one line/);
    expect(sshKeyProblem(`${ed25519} a\u0000b`)).to.match(/must be one line/);
    expect(sshKeyProblem(`${ed25519} a\u2028b`)).to.match(/must be one line/);
    expect(sshKeyProblem(`${ed25519.replace(' ', '\t')}\tcomment`), 'tabs separate fields as in authorized_keys').to.equal(undefined);
    expect(sshKeyProblem('ssh-ed25519')).to.equal(`${NOT_A_KEY}: expected "<type> <base64> [comment]"`);
    expect(sshKeyProblem('')).to.equal(`${NOT_A_KEY}: expected "<type> <base64> [comment]"`);
  });

  it('never quotes a private key or a long first word back', () => {
    const privateKey = '-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAABG5vbmU= -----END OPENSSH PRIVATE KEY-----';
    expect(sshKeyProblem(privateKey)).to.equal('is a private key: give the public key (the .pub file), and keep the private one to yourself');
    const problem = sshKeyProblem(`from="10.0.0.0/8",no-pty ${ed25519}`) ?? '';
    expect(problem).to.equal(`${NOT_A_KEY}: it does not start with a key type (allowed: ${SSH_KEY_TYPES.join(', ')})`);
  });
});
