// SPEC 29 (issue 31): POST /v1/ready/:token, a phone-home guest's call,
// over the real API server on the real Redis. Without an API token it
// takes cloud-init's form post, consumes the token and leaves the VM's
// signal: 204. A reused, forged, malformed or foreign token is the same
// 404 with the same body, and no key changes. The token is never logged.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { keys } from '../../src/redis-keys.js';
import { redisReadySignals } from '../../src/queue/ready-signals.js';
import { captureLogger } from '../support/capture-logger.js';
import { deletePrefix, scanKeys, uniquePrefix } from '../support/redis.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

const BINDING = { name: 'ph-web-1', uid: 'c0ffee00-0000-4000-8000-000000000031', generation: 3 };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Every key of the prefix with its value or members and whether it expires: what "nothing changed" compares. */
async function snapshot(web: TestWeb, prefix = web.prefix): Promise<Record<string, string>> {
  const found = (await scanKeys(web.redis, prefix)).sort();
  const entries = await Promise.all(
    found.map(async (key) => {
      const type = await web.redis.type(key);
      const value = type === 'string' ? await web.redis.get(key) : JSON.stringify(await web.redis.call('DUMP', key));
      return [key, `${type} ${value ?? ''} expires:${(await web.redis.ttl(key)) > 0}`] as const;
    }),
  );
  return Object.fromEntries(entries);
}

describe('POST /v1/ready/:token (SPEC 29, issue 31)', () => {
  let web: TestWeb;
  let records: Record<string, unknown>[];
  before(async () => {
    const captured = captureLogger('debug');
    records = captured.records;
    web = await buildTestWeb({}, { logger: captured.logger });
  });
  after(() => web.close());

  async function issued(binding = BINDING): Promise<string> {
    const token = newToken();
    await redisReadySignals(web.redis, web.prefix).issue(token, binding, 600);
    return token;
  }

  async function post(token: string, payload = 'instance_id=ph-web-1') {
    return web.app.inject({ method: 'POST', url: `/v1/ready/${token}`, headers: FORM, payload });
  }

  it("takes cloud-init's form post without an API token: 204, the token gone, the VM's signal left with its binding", async () => {
    const token = await issued();
    const res = await post(token);
    expect(res.statusCode).to.equal(204);
    expect(res.body).to.equal('');
    expect(await web.redis.exists(keys.readyToken(web.prefix, token))).to.equal(0);
    expect(JSON.parse((await web.redis.get(keys.readySignal(web.prefix, BINDING.name, BINDING.uid))) ?? 'null')).to.deep.equal(BINDING);
    expect(await web.redis.ttl(keys.readySignal(web.prefix, BINDING.name, BINDING.uid))).to.be.above(0);
    expect(await redisReadySignals(web.redis, web.prefix).arrived(BINDING.name, BINDING.uid)).to.equal(true);
  });

  it('takes a post with no body, or with a JSON one, as well', async () => {
    for (const send of [{ payload: undefined, headers: {} }, { payload: '{"instance_id":"x"}', headers: { 'content-type': 'application/json' } }]) {
      const token = await issued({ ...BINDING, name: `ph-web-${randomBytes(2).toString('hex')}` });
      const res = await web.app.inject({ method: 'POST', url: `/v1/ready/${token}`, headers: send.headers, ...(send.payload === undefined ? {} : { payload: send.payload }) });
      expect(res.statusCode, res.body).to.equal(204);
    }
  });

  it('a token is good once: the second call is the 404 any unknown token gets, and changes nothing', async () => {
    const token = await issued();
    expect((await post(token)).statusCode).to.equal(204);
    const before = await snapshot(web);
    const again = await post(token);
    expect(again.statusCode).to.equal(404);
    expect(again.json()).to.deep.equal({ error: 'NotFound', message: 'not found' });
    expect(await snapshot(web)).to.deep.equal(before);
  });

  it('forged, malformed and foreign tokens: the same status and body, nothing changed, the issued ones still good', async () => {
    const good = await issued();
    const other = uniquePrefix('web-foreign');
    const foreign = newToken();
    await redisReadySignals(web.redis, other).issue(foreign, BINDING, 600);
    try {
      const before = await snapshot(web);
      const otherBefore = await snapshot(web, other);
      const tries = [newToken(), good.slice(0, -1), `${good}A`, 'short', `${good.slice(0, -1)}=`, `${good.slice(0, -1)}%20`, foreign];
      const answers = await Promise.all(tries.map(async (token) => post(token)));
      for (const res of answers) {
        expect(res.statusCode).to.equal(404);
        expect(res.body).to.equal(answers[0]?.body);
      }
      expect(await snapshot(web)).to.deep.equal(before);
      expect(await snapshot(web, other)).to.deep.equal(otherBefore);
      expect((await post(good)).statusCode).to.equal(204);
    } finally {
      await deletePrefix(web.redis, other);
    }
  });

  it('two calls racing with one token: one 204, one 404', async () => {
    const token = await issued();
    const statuses = (await Promise.all([post(token), post(token)])).map((res) => res.statusCode).sort();
    expect(statuses).to.deep.equal([204, 404]);
  });

  it('refuses a body over its bound (413) and leaves the token good', async () => {
    const token = await issued();
    const res = await post(token, `instance_id=${'x'.repeat(20 * 1024)}`);
    expect(res.statusCode).to.equal(413);
    expect(await web.redis.exists(keys.readyToken(web.prefix, token))).to.equal(1);
  });

  it('logs no token, only a hash prefix of it', async () => {
    const token = await issued();
    const forged = newToken();
    await post(token);
    await post(forged);
    const text = JSON.stringify(records);
    expect(text).to.not.contain(token);
    expect(text).to.not.contain(forged);
    expect(records.some((r) => r.msg === `the guest of ${BINDING.name} phoned home`)).to.equal(true);
  });
});
