// SPEC 1, 24: the body limit follows the field table. The largest create
// the table allows is accepted, its texts at their byte bounds and written
// as JSON at their longest (every byte a \u00XX escape); a body larger than
// the limit is refused with 413 before it is parsed.
import { expect } from 'chai';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import { SSH_KEYS_MAX, SSH_KEY_MAX_BYTES } from '../../src/job-table/create.schema.js';
import { TEXT_MAX_BYTES } from '../../src/job-table/fields.js';
import { bodyLimitBytes } from '../../src/web/body-limit.js';
import { fixtureKey } from '../support/ssh-keys.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

/** A valid key line of exactly SSH_KEY_MAX_BYTES bytes, its comment made of `fill`. */
function largestKey(fill: string): string {
  const key = fixtureKey('ed25519.pub').split(' ').slice(0, 2).join(' ');
  return `${key} ${fill.repeat(SSH_KEY_MAX_BYTES - key.length - 1)}`;
}

describe('request body limit (SPEC 1, 24)', () => {
  let web: TestWeb;
  before(async () => {
    web = await buildTestWeb();
  });
  after(() => web.close());

  function largestCreate(name: string, text: string, keyFill: string): Record<string, unknown> {
    const limits = limitsFromConfig(web.config);
    return {
      name,
      uid: 'u'.repeat(64),
      node: web.config.proxmox.nodes[0]?.name,
      image: limits.defaultImage,
      cores: limits.limits.maxCores,
      memoryMiB: limits.limits.maxMemoryMiB,
      diskGiB: limits.limits.maxDiskGiB,
      userData: text.repeat(TEXT_MAX_BYTES),
      networkConfig: text.repeat(TEXT_MAX_BYTES),
      sshKeys: Array.from({ length: SSH_KEYS_MAX }, () => largestKey(keyFill)),
      vlanTag: 4094,
      bridge: `v${'b'.repeat(14)}`,
      waitForAddress: false,
    };
  }

  const post = (payload: string) =>
    web.app.inject({ method: 'POST', url: '/v1/vms', headers: { authorization: `Bearer ${web.token}`, 'content-type': 'application/json' }, payload });

  it('accepts the largest create of plain text (the table\'s 384 KiB of texts and keys)', async () => {
    const body = JSON.stringify(largestCreate(`a${'b'.repeat(61)}c`, 'x', 'k'));
    expect(Buffer.byteLength(body)).to.be.greaterThan(393_216);
    const res = await post(body);
    expect(res.statusCode, res.body.slice(0, 300)).to.equal(202);
  });

  it('accepts the largest create as JSON writes it longest: control characters escaped, quotes in the key comments', async () => {
    const body = JSON.stringify(largestCreate(`z${'y'.repeat(61)}z`, '\u0001', '"'));
    expect(Buffer.byteLength(body)).to.be.greaterThan(6 * 2 * TEXT_MAX_BYTES);
    const res = await post(body);
    expect(res.statusCode, res.body.slice(0, 300)).to.equal(202);
  });

  it('refuses a body one byte over the limit with 413 naming the limit, before parsing it; one at the limit is parsed', async () => {
    const limit = bodyLimitBytes(limitsFromConfig(web.config));
    const over = await post('x'.repeat(limit + 1));
    expect(over.statusCode).to.equal(413);
    expect(over.json()).to.deep.include({ error: 'PayloadTooLarge' });
    expect(over.body).to.contain(`larger than the ${limit} bytes`);
    // Not JSON either: a 400 (not 413) shows it was read and parsed.
    expect((await post('x'.repeat(limit))).statusCode).to.equal(400);
  });
});
