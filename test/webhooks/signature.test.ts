// SPEC 27: the signature is HMAC-SHA256 of the raw body with the secret,
// as `sha256=<hex>`, the scheme GitHub documents; its example is the
// vector here, so a receiver written for GitHub's webhooks checks ours.
import { expect } from 'chai';
import { signBody, verifySignature } from '../../src/webhooks/signature.js';

// docs.github.com, "Validating webhook deliveries": secret, payload, signature.
const GITHUB_SECRET = "It's a Secret to Everybody";
const GITHUB_PAYLOAD = 'Hello, World!';
const GITHUB_SIGNATURE = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

describe('webhook signature (SPEC 27)', () => {
  it("signs GitHub's documented example to GitHub's documented signature", () => {
    expect(signBody(GITHUB_PAYLOAD, GITHUB_SECRET)).to.equal(GITHUB_SIGNATURE);
    expect(signBody(Buffer.from(GITHUB_PAYLOAD), GITHUB_SECRET)).to.equal(GITHUB_SIGNATURE);
  });

  it('signs the bytes: the same JSON with other spacing signs differently', () => {
    expect(signBody('{"a":1}', 's3cret-value')).to.not.equal(signBody('{"a": 1}', 's3cret-value'));
  });

  it('verifies its own signature, and refuses another body, another secret, a bare hex or no header', () => {
    const body = '{"event":"vm.ready"}';
    const header = signBody(body, 's3cret-value');
    expect(verifySignature(body, 's3cret-value', header)).to.equal(true);
    expect(verifySignature(`${body} `, 's3cret-value', header)).to.equal(false);
    expect(verifySignature(body, 's3cret-valuf', header)).to.equal(false);
    expect(verifySignature(body, 's3cret-value', header.slice('sha256='.length))).to.equal(false);
    expect(verifySignature(body, 's3cret-value', `${header}00`)).to.equal(false);
    expect(verifySignature(body, 's3cret-value', undefined)).to.equal(false);
  });
});
