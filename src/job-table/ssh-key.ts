// One OpenSSH public key as a create's `sshKeys` item takes it (SPEC 27):
// `<type> <base64> [comment]` on one line, the way a `.pub` file and
// authorized_keys write it. The base64 is OpenSSH's wire format: a run of
// uint32-length-prefixed strings, the first of which repeats the type
// (RFC 4253 section 6.6, OpenSSH PROTOCOL.u2f for the sk- types), so a
// key pasted with the wrong type, cut short or mangled is refused here
// instead of locking the user out of the VM later. The words never echo
// what was given beyond a short type: a private key pasted by mistake
// must not reach an error or a log.

export const SSH_KEY_TYPES = [
  'ssh-ed25519',
  'ssh-rsa',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
] as const;
type SshKeyType = (typeof SSH_KEY_TYPES)[number];

/** OpenSSH refuses shorter RSA keys (SSH_RSA_MINIMUM_MODULUS_SIZE, 1024) and NIST says 2048. */
export const MIN_RSA_BITS = 2048;
/** OpenSSH's own ceiling (SSH_RSA_MAXIMUM_MODULUS_SIZE). */
const MAX_RSA_BITS = 16384;

const NOT_A_KEY = 'is not an OpenSSH public key';
const ALLOWED = `allowed: ${SSH_KEY_TYPES.join(', ')}`;
/** A type short and plain enough to quote back. */
const TYPE_TOKEN = /^[a-z0-9@.-]{1,40}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** Control characters but tab (C0, DEL, C1) and Unicode's line and paragraph separators: a key is one line of text. */
function hasControl(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09) || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029) return true;
  }
  return false;
}
const LINE = /^(\S+)[ \t]+(\S+)(?:[ \t]+(.*))?$/s;

class Truncated extends Error {}

/** Reads the wire format's uint32-length-prefixed strings. */
class WireReader {
  private offset = 0;
  constructor(private readonly blob: Buffer) {}

  string(): Buffer {
    if (this.offset + 4 > this.blob.length) throw new Truncated();
    const length = this.blob.readUInt32BE(this.offset);
    const start = this.offset + 4;
    if (start + length > this.blob.length) throw new Truncated();
    this.offset = start + length;
    return this.blob.subarray(start, start + length);
  }

  get left(): number {
    return this.blob.length - this.offset;
  }
}

/** Bits of an mpint (two's complement, big-endian; a positive one may lead with a 0 byte). */
function mpintBits(mpint: Buffer): number {
  let i = 0;
  while (i < mpint.length && mpint[i] === 0) i++;
  const first = mpint[i];
  if (first === undefined) return 0;
  return (mpint.length - i - 1) * 8 + (32 - Math.clz32(first));
}

const CURVE_POINT_BYTES: Record<string, number> = { nistp256: 65, nistp384: 97, nistp521: 133 };

/** What is wrong with the fields after the type, or undefined. */
function bodyProblem(type: SshKeyType, wire: WireReader): string | undefined {
  switch (type) {
    case 'ssh-rsa': {
      const e = wire.string();
      const bits = mpintBits(wire.string());
      if (mpintBits(e) === 0) return `${NOT_A_KEY}: its RSA exponent is 0`;
      if (bits < MIN_RSA_BITS) return `is an RSA key of ${bits} bits; at least ${MIN_RSA_BITS} are needed`;
      if (bits > MAX_RSA_BITS) return `is an RSA key of ${bits} bits; OpenSSH takes at most ${MAX_RSA_BITS}`;
      return undefined;
    }
    case 'ssh-ed25519':
    case 'sk-ssh-ed25519@openssh.com': {
      const point = wire.string();
      if (type.startsWith('sk-')) wire.string(); // the FIDO application, "ssh:" by default
      return point.length === 32 ? undefined : `${NOT_A_KEY}: its Ed25519 key is ${point.length} bytes, not 32`;
    }
    case 'ecdsa-sha2-nistp256':
    case 'ecdsa-sha2-nistp384':
    case 'ecdsa-sha2-nistp521':
    case 'sk-ecdsa-sha2-nistp256@openssh.com': {
      const curve = wire.string().toString('latin1');
      const point = wire.string();
      if (type.startsWith('sk-')) wire.string();
      const expected = /nistp\d+/.exec(type)?.[0] ?? '';
      if (curve !== expected) return `${NOT_A_KEY}: its curve is not ${expected}`;
      if (point.length !== CURVE_POINT_BYTES[curve] || point[0] !== 4) return `${NOT_A_KEY}: its ${curve} point is malformed`;
      return undefined;
    }
  }
}

function isKeyType(type: string): type is SshKeyType {
  return (SSH_KEY_TYPES as readonly string[]).includes(type);
}

/**
 * What is wrong with one key line, said after its field name
 * (`sshKeys[1] is not an OpenSSH public key: ...`), or undefined when it
 * is a key the guest's sshd takes.
 */
export function sshKeyProblem(line: string): string | undefined {
  if (line.includes('PRIVATE KEY')) return 'is a private key: give the public key (the .pub file), and keep the private one to yourself';
  if (hasControl(line)) return `${NOT_A_KEY}: it must be one line, with no line breaks or control characters`;
  const fields = LINE.exec(line);
  const [, type = '', data = ''] = fields ?? [];
  if (!fields) return `${NOT_A_KEY}: expected "<type> <base64> [comment]"`;
  if (!isKeyType(type)) {
    return TYPE_TOKEN.test(type) ? `${NOT_A_KEY}: its type is ${type}, ${ALLOWED}` : `${NOT_A_KEY}: it does not start with a key type (${ALLOWED})`;
  }
  if (!BASE64.test(data) || data.length % 4 !== 0) return `${NOT_A_KEY}: its key data is not base64`;
  const wire = new WireReader(Buffer.from(data, 'base64'));
  try {
    const inner = wire.string().toString('latin1');
    if (inner !== type) return `${NOT_A_KEY}: it says ${type} but its key data is ${TYPE_TOKEN.test(inner) ? inner : 'of another kind'}`;
    const problem = bodyProblem(type, wire);
    if (problem !== undefined) return problem;
  } catch (err) {
    if (err instanceof Truncated) return `${NOT_A_KEY}: its key data is truncated`;
    throw err;
  }
  return wire.left === 0 ? undefined : `${NOT_A_KEY}: its key data has ${wire.left} bytes after the key`;
}
